-- wrk closed-loop driver for bench/src/run-wrk.ts. WRK_CORPUS names a file of one request per line:
-- with WRK_METHOD=POST (the default) each line is a body posted to WRK_PATH (default /openrtb/bid), optionally
-- followed by "<TAB>visitor address" (JSON bodies hold no raw tab);
-- with WRK_METHOD=GET each line is "path<TAB>visitor address", sent with X-Forwarded-For set to that
-- address. WRK_HEADERS adds "name: value" lines to every request. Requests are built once in init(),
-- so wrk only copies bytes; the summary is printed as one JSON line.
local requests = {}
local n = 0
local i = 0

function init(args)
  local method = os.getenv("WRK_METHOD") or "POST"
  local target = os.getenv("WRK_PATH") or "/openrtb/bid"
  local extra = {}
  for name, value in string.gmatch(os.getenv("WRK_HEADERS") or "", "([^:\n]+):%s*([^\n]*)") do
    extra[name] = value
  end
  for line in io.lines(os.getenv("WRK_CORPUS")) do
    local headers = {}
    for k, v in pairs(extra) do headers[k] = v end
    if method == "GET" then
      local path, address = string.match(line, "^([^\t]+)\t?(.*)$")
      if address ~= "" then headers["x-forwarded-for"] = address end
      requests[#requests + 1] = wrk.format("GET", path, headers)
    else
      local body, address = string.match(line, "^([^\t]+)\t?(.*)$")
      if address ~= "" then headers["x-forwarded-for"] = address end
      if headers["content-type"] == nil then headers["content-type"] = "application/json" end
      headers["x-openrtb-version"] = "2.5"
      requests[#requests + 1] = wrk.format("POST", target, headers, body)
    end
  end
  n = #requests
  -- Each thread starts at its own point of the corpus.
  i = math.random(0, n - 1)
end

function request()
  i = i % n + 1
  return requests[i]
end

-- No response() hook: with one, wrk parses every answer in Lua and becomes the ceiling itself.
-- Answers of 400 and above are counted by wrk as status errors.

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"duration_us":%d,"errors":%d,"status_errors":%d,"p50_us":%d,"p99_us":%d,"p999_us":%d,"max_us":%d}\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout + e.status, e.status,
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9), latency.max))
end
