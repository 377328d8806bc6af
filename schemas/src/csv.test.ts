import { describe, expect, it } from 'vitest';
import { csvCell, csvTable } from './csv.ts';

describe('csvCell', () => {
  it('neutralises every formula start the OWASP way: a leading quote, the cell quoted', () => {
    expect(csvCell('=HYPERLINK("http://x","y")')).toBe('"\'=HYPERLINK(""http://x"",""y"")"');
    expect(csvCell('+1+cmd|calc!A0')).toBe(`"'+1+cmd|calc!A0"`);
    expect(csvCell('-2+3')).toBe(`"'-2+3"`);
    expect(csvCell('@SUM(A1)')).toBe(`"'@SUM(A1)"`);
    expect(csvCell('\t=1')).toBe(`"'\t=1"`);
    expect(csvCell('\r=1')).toBe(`"'\r=1"`);
  });

  it('quotes commas, quotes and line breaks; leaves plain text and numbers, negative ones too', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('a\nb')).toBe('"a\nb"');
    expect(csvCell('us')).toBe('us');
    expect(csvCell(-5)).toBe('-5');
    expect(csvCell(12.5)).toBe('12.5');
    expect(csvCell(undefined)).toBe('');
  });

  it('csvTable writes a header and rows', () => {
    expect(csvTable(['geo', 'clicks'], [{ geo: '=1+1', clicks: 3 }, { geo: 'de' }])).toBe(
      `geo,clicks\n"'=1+1",3\nde,\n`,
    );
  });
});
