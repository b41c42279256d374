import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { csvCell, csvDocument, reais } from '../../pages/dashboard/csv.ts';

/** The dashboard's CSV downloads: what a spreadsheet opening them reads. */

describe('csvDocument', () => {
  it('starts with the UTF-8 byte-order mark and ends every row, the header first, with CRLF', () => {
    const doc = csvDocument(
      ['email', 'amount'],
      [
        ['ana@example.com', reais(108312)],
        ['joão@example.com', null],
      ],
    );
    expect(doc).toBe('\uFEFFemail,amount\r\nana@example.com,1083.12\r\njoão@example.com,\r\n');
    expect(Buffer.from(doc, 'utf8').subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
  });

  it('quotes a cell with a comma, a quote or a line break, doubling its quotes (RFC 4180)', () => {
    expect(csvCell('Souza, Ana')).toBe('"Souza, Ana"');
    expect(csvCell('the "best" course')).toBe('"the ""best"" course"');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('a\r\nb')).toBe('"a\r\nb"');
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('')).toBe('');
  });

  it.each([
    ['=HYPERLINK("http://x","y")', `"'=HYPERLINK(""http://x"",""y"")"`],
    ['+5511999999999', "'+5511999999999"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\t=1', "'\t=1"],
    ['\r=1', `"'\r=1"`],
  ])('defuses %j, which a spreadsheet would run as a formula, into text', (text, written) => {
    expect(csvCell(text)).toBe(written);
  });

  it('writes amounts bare, even negative ones, and refuses a decimal that is not one', () => {
    expect(csvCell(reais(-5))).toBe('-0.05');
    expect(() => csvCell({ decimal: '=1+1' })).toThrow(RangeError);
  });
});

describe('reais', () => {
  it.each([
    [0, '0.00'],
    [5, '0.05'],
    [99, '0.99'],
    [100, '1.00'],
    [108312, '1083.12'],
    [-108312, '-1083.12'],
    [Number.MAX_SAFE_INTEGER, '90071992547409.91'],
  ])('%d cents are %s', (cents, text) => {
    expect(reais(cents).decimal).toBe(text);
  });

  it('reads back as the same integer of cents, whatever the amount', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (cents) => {
        const [whole, part] = reais(cents).decimal.replace('-', '').split('.');
        const back = BigInt(whole!) * 100n + BigInt(part!);
        expect(cents < 0 ? -back : back).toBe(BigInt(cents));
      }),
    );
  });

  it('refuses anything but a safe integer of cents', () => {
    expect(() => reais(10.5)).toThrow(RangeError);
    expect(() => reais(Number.NaN)).toThrow(RangeError);
  });
});
