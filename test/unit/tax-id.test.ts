import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { formatTaxId, isValidCnpj, isValidCpf, normalizeTaxIdDigits, parseTaxId } from '../../domain/tax-id.ts';

// Independent reference generator (written from the Receita Federal algorithm,
// not shared with the code under test) so the tests do not check the code against itself.
function mod11(body: string, firstWeight: number, wrapAt?: number): number {
  let sum = 0;
  let w = firstWeight;
  for (const ch of body) {
    sum += Number(ch) * w;
    w = w === 2 && wrapAt !== undefined ? wrapAt : w - 1;
  }
  const r = sum % 11;
  return r < 2 ? 0 : 11 - r;
}
function completeCpf(body9: string): string {
  const d1 = mod11(body9, 10);
  const d2 = mod11(body9 + d1, 11);
  return `${body9}${d1}${d2}`;
}
function completeCnpj(body12: string): string {
  const d1 = mod11(body12, 5, 9);
  const d2 = mod11(body12 + d1, 6, 9);
  return `${body12}${d1}${d2}`;
}

const digitString = (n: number) =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n }).map((a) => a.join(''));
const notRepeated = (s: string) => !/^(\d)\1*$/.test(s);
const validCpf = digitString(9).map(completeCpf).filter(notRepeated);
const validCnpj = digitString(12).map(completeCnpj).filter(notRepeated);

describe('reference generator sanity', () => {
  it('reproduces published examples', () => {
    expect(completeCpf('529982247')).toBe('52998224725');
    expect(completeCnpj('112223330001')).toBe('11222333000181');
  });
});

describe('isValidCpf', () => {
  it.each(['52998224725', '11144477735', completeCpf('123456789')])('accepts %s', (cpf) => {
    expect(isValidCpf(cpf)).toBe(true);
  });

  it.each([
    ['wrong first check digit', '52998224735'],
    ['wrong second check digit', '52998224726'],
    ['too short', '5299822472'],
    ['too long', '529982247250'],
    ['non-digits', '529.982.247-25'],
    ['empty', ''],
  ])('rejects %s', (_, cpf) => {
    expect(isValidCpf(cpf)).toBe(false);
  });

  it('rejects every repeated-digit sequence, even those whose check digits compute', () => {
    // 11111111111 is arithmetically valid, so this rule does real work.
    expect(completeCpf('111111111')).toBe('11111111111');
    for (let d = 0; d <= 9; d++) expect(isValidCpf(String(d).repeat(11))).toBe(false);
  });

  it('rejects a valid CNPJ', () => {
    expect(isValidCpf('11222333000181')).toBe(false);
  });

  it('property: generated CPFs are valid', () => {
    fc.assert(fc.property(validCpf, (cpf) => isValidCpf(cpf)));
  });

  it('property: changing either check digit makes it invalid', () => {
    fc.assert(
      fc.property(validCpf, fc.constantFrom(9, 10), fc.integer({ min: 1, max: 9 }), (cpf, pos, delta) => {
        const mutated = cpf.slice(0, pos) + ((Number(cpf[pos]) + delta) % 10) + cpf.slice(pos + 1);
        return !isValidCpf(mutated);
      }),
    );
  });
});

describe('isValidCnpj', () => {
  it.each(['11222333000181', '11444777000161', completeCnpj('123456780001')])('accepts %s', (cnpj) => {
    expect(isValidCnpj(cnpj)).toBe(true);
  });

  it.each([
    ['wrong first check digit', '11222333000191'],
    ['wrong second check digit', '11222333000182'],
    ['too short', '1122233300018'],
    ['too long', '112223330001810'],
    ['non-digits', '11.222.333/0001-81'],
    ['alphanumeric CNPJ', '12ABC34501DE35'],
  ])('rejects %s', (_, cnpj) => {
    expect(isValidCnpj(cnpj)).toBe(false);
  });

  it('rejects every repeated-digit sequence', () => {
    expect(completeCnpj('000000000000')).toBe('00000000000000');
    for (let d = 0; d <= 9; d++) expect(isValidCnpj(String(d).repeat(14))).toBe(false);
  });

  it('rejects a valid CPF', () => {
    expect(isValidCnpj('52998224725')).toBe(false);
  });

  it('property: generated CNPJs are valid', () => {
    fc.assert(fc.property(validCnpj, (cnpj) => isValidCnpj(cnpj)));
  });

  it('property: changing either check digit makes it invalid', () => {
    fc.assert(
      fc.property(validCnpj, fc.constantFrom(12, 13), fc.integer({ min: 1, max: 9 }), (cnpj, pos, delta) => {
        const mutated = cnpj.slice(0, pos) + ((Number(cnpj[pos]) + delta) % 10) + cnpj.slice(pos + 1);
        return !isValidCnpj(mutated);
      }),
    );
  });
});

describe('normalizeTaxIdDigits', () => {
  it('strips dots, dashes, slashes and spaces only', () => {
    expect(normalizeTaxIdDigits(' 11.222.333/0001-81 ')).toBe('11222333000181');
    expect(normalizeTaxIdDigits('529 982\t247-25')).toBe('52998224725');
    expect(normalizeTaxIdDigits('52a')).toBe('52a');
  });
});

describe('parseTaxId', () => {
  it('infers cpf from 11 digits and cnpj from 14', () => {
    expect(parseTaxId('529.982.247-25')).toEqual({
      type: 'cpf',
      number: '52998224725',
    });
    expect(parseTaxId('11.222.333/0001-81')).toEqual({
      type: 'cnpj',
      number: '11222333000181',
    });
  });

  it('accepts the object form with or without a matching type', () => {
    expect(parseTaxId({ type: 'cpf', number: '52998224725' })).toEqual({
      type: 'cpf',
      number: '52998224725',
    });
    expect(parseTaxId({ type: 'CNPJ', number: '11222333000181' })).toEqual({
      type: 'cnpj',
      number: '11222333000181',
    });
    expect(parseTaxId({ number: '11222333000181' })).toEqual({
      type: 'cnpj',
      number: '11222333000181',
    });
  });

  it.each([
    ['a type that does not match the digits', { type: 'cnpj', number: '52998224725' }],
    ['cpf type on a CNPJ', { type: 'cpf', number: '11222333000181' }],
    ['an unknown type', { type: 'rg', number: '52998224725' }],
    ['a wrong check digit', '529.982.247-24'],
    ['letters', '5299822472X'],
    ['a repeated sequence', '111.111.111-11'],
    ['a wrong length', '1234567890123'],
  ])('returns null for %s', (_, input) => {
    expect(parseTaxId(input)).toBeNull();
  });

  it('property: formatting then parsing round-trips', () => {
    fc.assert(
      fc.property(fc.oneof(validCpf, validCnpj), (digits) => {
        const parsed = parseTaxId(digits);
        return parsed !== null && parsed.number === digits && parseTaxId(formatTaxId(parsed))?.number === digits;
      }),
    );
  });
});

describe('formatTaxId', () => {
  it('formats cpf and cnpj', () => {
    expect(formatTaxId({ type: 'cpf', number: '12345678909' })).toBe('123.456.789-09');
    expect(formatTaxId({ type: 'cnpj', number: '12345678000195' })).toBe('12.345.678/0001-95');
  });
});
