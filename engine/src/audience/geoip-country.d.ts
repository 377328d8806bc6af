// The part of geoip-country (no published types) the engine calls.
declare module 'geoip-country' {
  interface GeoipCountry {
    /** The record for an IPv4 or IPv6 address (IPv4-mapped IPv6 included), or null when no range holds it. */
    lookup(ip: string): { country: string } | null;
  }
  const geoip: GeoipCountry;
  export default geoip;
}
