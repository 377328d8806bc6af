import { memoByString } from '@adnet/runtime/memo';
import { COUNTRY_CODES } from '@adnet/schemas/geo';
import geoip from 'geoip-country';

// The country of a client address, from the IP-to-country database the `geoip-country` package ships
// (MaxMind GeoLite2 Country, refreshed by upgrading the package: docs/deployment.md#geo-database). The
// package reads its database (~8 MB) into memory when this module is first imported, once per process,
// so no request waits on a file; a lookup is a binary search over that memory (~2 us).

/** Addresses repeat (a visitor asks for several ads): a memo hit costs ~0.02 us against the lookup's ~2 us. */
const lookup = memoByString((ip): string | undefined => {
  const code = geoip.lookup(ip)?.country.toLowerCase();
  // Only codes of real countries: a region code (EU, AP) for a range not placed in one country is none.
  return code !== undefined && COUNTRY_CODES.has(code) ? code : undefined;
});

/** Lower-case ISO 3166-1 alpha-2 country of an IPv4 or IPv6 address; undefined for private, reserved or unknown ones. */
export const countryOfAddress = (ip: string): string | undefined => (ip === '' ? undefined : lookup(ip));
