import { describe, expect, it } from '@jest/globals';
import { messagesFor as checkoutMessages } from '../../pages/checkout/messages.ts';
import {
  CONFIRMATION_PAGE_CODES,
  LINK_PAGE_CODES,
  linkRefusalText,
  refusalText,
} from '../../pages/checkout/refusals.ts';
import { messagesFor as portalMessages } from '../../pages/portal/messages.ts';
import { PORTAL_CHANGE_CODES, refusalText as portalRefusalText } from '../../pages/portal/refusals.ts';
import type { Locale } from '../../pages/locale.ts';
import { ApiError } from '../../use-cases/errors.ts';

/**
 * Every error code a buyer's or a customer's page can meet has its own words in every locale of the page's
 * catalogue (issue 34 §1): never the API's English message or detail, never the fallback by accident.
 */
const LOCALES: Locale[] = ['pt-BR', 'en'];
const refusal = (code: string) => new ApiError(422, code, `API message of ${code}`, `API detail of ${code}`);

/** Each code's text in each locale: its own (not the fallback), and a translation (pt-BR is not the English). */
function expectWorded(codes: readonly string[], textOf: (locale: Locale, code: string) => string, fallback: string[]) {
  const missing: string[] = [];
  for (const code of codes) {
    const [pt, en] = LOCALES.map((locale) => textOf(locale, code));
    for (const [locale, text] of [
      ['pt-BR', pt],
      ['en', en],
    ] as const) {
      if (!text || fallback.includes(text) || text.includes('API ')) missing.push(`${locale} ${code}`);
    }
    if (pt === en) missing.push(`pt-BR ${code} (the English text)`);
  }
  expect(missing).toEqual([]);
}

describe("the pages' refusal messages", () => {
  const checkoutFallbacks = LOCALES.flatMap((l) => [
    checkoutMessages(l).refusalFallback,
    checkoutMessages(l).linkFallback,
  ]);

  it('word every code a confirmation from the hosted checkout can be refused with', () => {
    expect(CONFIRMATION_PAGE_CODES).toEqual(
      expect.arrayContaining(['invalid_tax_id', 'customer_name_required', 'discount_not_found', 'checkout_not_open']),
    );
    expectWorded(
      CONFIRMATION_PAGE_CODES,
      (l, code) => refusalText(checkoutMessages(l), refusal(code)),
      checkoutFallbacks,
    );
  });

  it('word every reason a checkout link opens no checkout for', () => {
    expectWorded(LINK_PAGE_CODES, (l, code) => linkRefusalText(checkoutMessages(l), refusal(code)), checkoutFallbacks);
  });

  it("word every code a portal page's change can be refused with", () => {
    const fallbacks = LOCALES.map((l) => portalMessages(l).refusalFallback);
    expectWorded(PORTAL_CHANGE_CODES, (l, code) => portalRefusalText(portalMessages(l), refusal(code)), fallbacks);
  });

  it("answer an unknown code politely in the page's language, never with the API's text", () => {
    for (const locale of LOCALES) {
      const unknown = refusal('some_future_code');
      expect(refusalText(checkoutMessages(locale), unknown)).toBe(checkoutMessages(locale).refusalFallback);
      expect(linkRefusalText(checkoutMessages(locale), unknown)).toBe(checkoutMessages(locale).linkFallback);
      expect(portalRefusalText(portalMessages(locale), unknown)).toBe(portalMessages(locale).refusalFallback);
    }
    expect(checkoutMessages('pt-BR').refusalFallback).toMatch(/^Não foi possível/);
  });

  it('say how long to wait after too many requests, in both catalogues and locales', () => {
    expect(checkoutMessages('pt-BR').busyBody(30)).toContain('Aguarde 30 segundos');
    expect(checkoutMessages('pt-BR').busyBody(1)).toContain('Aguarde 1 segundo e');
    expect(checkoutMessages('en').busyBody(30)).toContain('Wait 30 seconds');
    expect(portalMessages('pt-BR').busyBody(5)).toContain('Aguarde 5 segundos');
    expect(portalMessages('en').busyTitle).toBe('Too many attempts in a short time');
  });
});
