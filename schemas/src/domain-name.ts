import { isIP } from 'node:net';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * A site's domain as users type it (`https://Www.Example.COM/path`, `münchen.de`)
 * to its canonical form: lowercase ASCII (IDN to punycode through the WHATWG URL
 * parser), no scheme, port, path or trailing dot. Undefined when it is not a
 * public domain name (an IP address, one label, a bad label or TLD).
 */
export function normalizeDomain(input: string): string | undefined {
  const trimmed = input.trim();
  if (!trimmed || trimmed.length > 300 || /\s/.test(trimmed)) return undefined;
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `http://${trimmed}`;
  let host: string;
  try {
    const url = new URL(withScheme);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    if (url.username || url.password) return undefined;
    host = url.hostname;
  } catch {
    return undefined;
  }
  host = host.replace(/\.$/, '').toLowerCase();
  if (host.length > 253 || isIP(host) || host.startsWith('[')) return undefined;
  const labels = host.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return undefined;
  const tld = labels[labels.length - 1] as string;
  if (!/^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/.test(tld)) return undefined;
  return host;
}
