import { describe, expect, it } from '@jest/globals';
import { boletoDueDate, pixValiditySeconds } from '../../domain/pending-payments.ts';
import { boletoPayableUntil } from '../../gateway/payment-documents.ts';

const now = new Date('2026-03-02T12:00:00Z');
const later = (seconds: number) => new Date(now.getTime() + seconds * 1000);

describe('a pix', () => {
  it("is valid until the checkout's expiry, in whole seconds rounded up", () => {
    expect(pixValiditySeconds(later(600), now)).toBe(600);
    expect(pixValiditySeconds(later(600.2), now)).toBe(601);
  });

  it('is valid half an hour at most, and a second at least', () => {
    expect(pixValiditySeconds(later(3600), now)).toBe(1800);
    expect(pixValiditySeconds(later(0), now)).toBe(1);
    expect(pixValiditySeconds(later(-30), now)).toBe(1);
  });
});

describe('a boleto', () => {
  it('falls due three days after it is issued (UTC dates)', () => {
    expect(boletoDueDate(now)).toBe('2026-03-05');
    expect(boletoDueDate(new Date('2026-02-27T23:59:59Z'))).toBe('2026-03-02');
  });

  it('may be paid through three grace days after its due date, as the gateway counts them', () => {
    expect(boletoPayableUntil('2026-03-05').toISOString()).toBe('2026-03-09T00:00:00.000Z');
  });
});
