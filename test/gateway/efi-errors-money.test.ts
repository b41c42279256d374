import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { centsOf, idFromKey, reais, statusOfEfiError } from '../../gateway/efi-client.ts';

/** Efí's edge: reais as the Pix API writes them, ids derived from keys, and which failures are retried. */
describe('Efí money and ids', () => {
  it('writes any cents as reais with two decimals, read back exactly', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 99_999_999_999 }), (cents) => {
        const text = reais(cents);
        expect(text).toMatch(/^\d{1,10}\.\d{2}$/);
        // Oracle: the decimal written out by hand from the integer's digits.
        const digits = String(cents).padStart(3, '0');
        expect(text).toBe(`${BigInt(digits.slice(0, -2))}.${digits.slice(-2)}`);
        expect(centsOf(text)).toBe(cents);
      }),
    );
    expect(centsOf('12.3')).toBe(1230);
    expect(centsOf('12')).toBe(1200);
    expect(() => reais(-1)).toThrow();
    expect(() => reais(1.5)).toThrow();
  });

  it('derives the same BCB id from the same key, and different ones from different keys', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 200 }), fc.string({ minLength: 1, maxLength: 200 }), (a, b) => {
        expect(idFromKey(a)).toMatch(/^[a-z][a-z0-9]{25,34}$/);
        expect(idFromKey(a)).toBe(idFromKey(a));
        if (a !== b) expect(idFromKey(a)).not.toBe(idFromKey(b));
      }),
    );
  });
});

describe('Efí errors without their HTTP status (the SDK rejects with the body alone)', () => {
  it('reads the status of each shape Efí answers', () => {
    // The BCB problem body states it.
    expect(statusOfEfiError({ type: 'https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida', status: 400 })).toBe(
      400,
    );
    expect(statusOfEfiError({ title: 'Service Unavailable', status: 503 })).toBe(503);
    // Efí's own shapes: refusals, unless they name a server error; "not found" by name.
    expect(statusOfEfiError({ nome: 'valor_invalido', mensagem: 'O valor é inválido' })).toBe(400);
    expect(statusOfEfiError({ nome: 'erro_interno_servidor', mensagem: 'Erro interno' })).toBe(500);
    expect(statusOfEfiError({ nome: 'cobranca_nao_encontrada', mensagem: 'x' })).toBe(404);
    expect(statusOfEfiError({ code: 3500034, error: 'validation_error', error_description: 'x' })).toBe(400);
    // No answer we can read: a proxy's page, a dropped connection, a thrown error with a status.
    expect(statusOfEfiError('<html>502 Bad Gateway</html>')).toBe(0);
    expect(statusOfEfiError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))).toBe(0);
    expect(statusOfEfiError(Object.assign(new Error('bad'), { status: 502 }))).toBe(502);
  });
});
