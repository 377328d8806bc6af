/**
 * The URL of a request from its target as sent: origin form (`/path?query`, where `//host/...` is a
 * path, not another host) or absolute form (`http://host/path`, which proxies may send). Undefined
 * for anything else, such as an authority that does not parse: that is the client's error, not ours.
 */
export function requestUrl(target: string): URL | undefined {
  try {
    return target.startsWith('/')
      ? new URL(`http://local${target}`)
      : /^https?:\/\//i.test(target)
        ? new URL(target)
        : undefined;
  } catch {
    return undefined;
  }
}
