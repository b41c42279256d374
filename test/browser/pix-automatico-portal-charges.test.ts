import { describe, expect, it } from '@jest/globals';
import { render } from 'preact-render-to-string';
import type { PortalMandate } from '../../api/portal-mandates.ts';
import { MandateSection } from '../../pages/portal/mandate.ts';
import { html } from '../../pages/render.ts';

/**
 * The portal's mandate section with charges, as a subscription reaches them after months (the browser
 * test's subscription has none yet): each charge with its attempts, and a refusal's reason in words.
 */
const mandate: PortalMandate = {
  id: 'm1',
  status: 'approved',
  journey: 'journey_3',
  periodicity: 'monthly',
  start_date: '2026-12-29',
  payer_maximum: 5_000,
  currency: 'BRL',
  cancellation: null,
  rejection: null,
  next_charge: { due_date: '2027-02-28', amount: 3_990 },
  charges: [
    {
      period: 2,
      due_date: '2026-12-29',
      amount: 3_990,
      status: 'completed',
      failure_reason: null,
      failure_description: null,
      attempts: [
        {
          settlement_date: '2026-12-29',
          kind: 'scheduled',
          status: 'expired',
          failure_reason: 'insufficient_funds',
          failure_description: 'The payer’s account had no funds on the settlement day',
        },
        {
          settlement_date: '2026-12-30',
          kind: 'retry',
          status: 'paid',
          failure_reason: null,
          failure_description: null,
        },
      ],
    },
    {
      period: 3,
      due_date: '2027-01-29',
      amount: 3_990,
      status: 'rejected',
      failure_reason: 'AM02',
      failure_description: 'The amount is above the maximum the payer allows',
      attempts: [],
    },
  ],
};

const text = (locale: 'pt-BR' | 'en') =>
  render(html`<${MandateSection} mandate=${mandate} subscriptionId="s1" locale=${locale} />`)
    .replace(/<[^>]+>/g, ' ')
    .replace(/[ \t\n]+/g, ' ');

describe('the portal’s Pix Automático section', () => {
  it('lists each charge with its attempts and reasons in words, and the next charge', () => {
    const pt = text('pt-BR');
    expect(pt).toContain('29/12/2026 sem saldo no dia (Não havia saldo na conta no dia da cobrança); 30/12/2026 paga');
    expect(pt).toContain('Recusada: O valor passou do máximo que você definiu');
    expect(pt).toContain('R$\u00a039,90 em 28/02/2027');
    expect(pt).toContain('Valor máximo definido por você R$\u00a050,00');
    // English: the API's own description of a reason.
    expect(text('en')).toContain('Refused: The amount is above the maximum the payer allows');
  });
});
