/**
 * The Content-Security-Policy of every answer that is not the cabinet's page: JSON, XML (VAST), pixels,
 * redirects, the widget script. Opened as a document (an admin clicking a VAST link, say) such an answer
 * may load nothing and runs sandboxed, on an opaque origin, so nothing in it can reach our origin's
 * storage. A policy on a script answer does not bind the script a page includes (that runs under the
 * page's own policy); it applies only if the script's URL is opened as a document or run as a worker.
 */
export const NO_CONTENT_CSP = "default-src 'none'; sandbox";

/** Headers every such answer carries: the type as declared (never sniffed into HTML) and the policy above. */
export const SAFE_RESPONSE_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': NO_CONTENT_CSP,
};
