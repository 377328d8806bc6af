-- wrk closed-loop driver: each connection posts the corpus (one request per line of the file named by
-- WRK_CORPUS) in turn, with the OpenRTB version header, and the summary is printed as one JSON line that
-- bench/src/run-wrk.ts reads. Requests are built once in init(): wrk then only copies bytes.
local requests = {}
local n = 0
local i = 0

function init(args)
  local path = os.getenv("WRK_CORPUS")
  local target = os.getenv("WRK_PATH") or "/openrtb/bid"
  local method = os.getenv("WRK_METHOD") or "POST"
  for line in io.lines(path) do
    if method == "GET" then
      requests[#requests + 1] = wrk.format("GET", line, { ["x-openrtb-version"] = "2.5" })
    else
      requests[#requests + 1] = wrk.format("POST", target, { ["content-type"] = "application/json", ["x-openrtb-version"] = "2.5" }, line)
    end
  end
  n = #requests
  -- Threads start at different points of the corpus.
  i = math.random(0, n - 1)
end

function request()
  i = i % n + 1
  return requests[i]
end

-- No response() hook: with one, wrk parses every answer in Lua and becomes the ceiling itself. Answers of
-- 400 and above are counted by wrk as status errors.
function done(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout + summary.errors.status
  io.write(string.format(
    '{"requests":%d,"duration_us":%d,"errors":%d,"status_errors":%d,"p50_us":%d,"p99_us":%d,"p999_us":%d,"max_us":%d}\n',
    summary.requests, summary.duration, errors, summary.errors.status,
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9), latency.max))
end
