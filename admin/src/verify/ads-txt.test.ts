import { describe, expect, it } from 'vitest';
import { adsTxtHasLine } from './ads-txt.ts';

const LINE = 'ads.network.example, 42, DIRECT';

describe('adsTxtHasLine', () => {
  it('finds the record whatever the spacing, case of domain and relationship, comments and certification id', () => {
    expect(adsTxtHasLine(`# ads.txt\nother.example, 1, RESELLER\n${LINE}\n`, LINE)).toBe(true);
    expect(adsTxtHasLine('ADS.Network.example ,42,direct, f08c47fec0942fa0 # us\r\n', LINE)).toBe(true);
  });

  it('does not take another account, relationship or domain, a commented-out line or a variable for it', () => {
    expect(adsTxtHasLine('ads.network.example, 420, DIRECT', LINE)).toBe(false);
    expect(adsTxtHasLine('ads.network.example, 42, RESELLER', LINE)).toBe(false);
    expect(adsTxtHasLine('network.example, 42, DIRECT', LINE)).toBe(false);
    expect(adsTxtHasLine(`# ${LINE}`, LINE)).toBe(false);
    expect(adsTxtHasLine('contact=ads.network.example, 42, DIRECT', LINE)).toBe(false);
    expect(adsTxtHasLine('', LINE)).toBe(false);
    expect(adsTxtHasLine('<html>not found</html>', LINE)).toBe(false);
  });
});
