import {
  offersRecurringBilling,
  offersSandboxControls,
  offersSandboxRecurringBilling,
} from '../../gateway/capabilities.ts';
import { HttpGateway } from '../../gateway/http-adapter.ts';
import { EfiGateway } from '../../gateway/efi-adapter.ts';
import { offersCardPayments, offersPixAutomatico, offersSandboxPixAutomatico } from '../../gateway/capabilities.ts';
import { MercadoPagoGateway } from '../../gateway/mercadopago-adapter.ts';
import type { PaymentGateway } from '../../gateway/port.ts';
import { SimulatedGateway } from '@billing/simulated-gateway';
import { describe, expect, it } from '@jest/globals';
import {
  checkoutExpiresAt,
  offerRefusal,
  offersPixAutomaticoOptIn,
  renewalCheckoutExpiryMinutes,
  termsRefusal,
  recurrenceBillingOf,
} from '../../domain/checkout-eligibility.ts';

const oneTime = { id: 'price-1', type: 'one_time' as const };
const recurring = { id: 'price-2', type: 'recurring' as const };

describe('termsRefusal', () => {
  it('refuses a trial or manual billing of a one-time price, with the code the API answers', () => {
    expect(termsRefusal(oneTime, { trial: true })).toEqual({
      code: 'trial_not_allowed',
      message: 'A trial needs a recurring price',
      detail: 'price price-1 is one_time',
    });
    expect(termsRefusal(oneTime, { trial: false, recurrenceBilling: 'manual' })?.code).toBe(
      'recurrence_billing_not_allowed',
    );
    expect(termsRefusal(oneTime, { trial: false, recurrenceBilling: 'gateway' })).toBeNull();
    expect(termsRefusal(oneTime, { trial: false })).toBeNull();
  });

  it('allows both with a recurring price', () => {
    expect(termsRefusal(recurring, { trial: true, recurrenceBilling: 'manual' })).toBeNull();
  });
});

describe('offerRefusal', () => {
  const live = { id: 'product-1', isArchived: false };
  const archived = { id: 'product-1', isArchived: true };
  const inactive = { id: 'price-1', active: false };

  it('sells no archived product or inactive price to a new buyer', () => {
    expect(offerRefusal(archived, null, false)).toEqual({
      code: 'product_archived',
      message: 'The product is archived',
      detail: 'product product-1',
    });
    expect(offerRefusal(live, inactive, false)).toEqual({
      code: 'price_inactive',
      message: 'The price is archived',
      detail: 'price price-1',
    });
    expect(offerRefusal(live, { id: 'price-1', active: true }, false)).toBeNull();
  });

  it('lets a renewal pay for them', () => {
    expect(offerRefusal(archived, inactive, true)).toBeNull();
  });
});

describe('expiry', () => {
  const now = new Date('2026-03-02T12:00:00Z');

  it('is an hour after creation unless the creator says otherwise', () => {
    expect(checkoutExpiresAt(now).toISOString()).toBe('2026-03-02T13:00:00.000Z');
    expect(checkoutExpiresAt(now, 10).toISOString()).toBe('2026-03-02T12:10:00.000Z');
  });

  it('keeps a renewal checkout open until its deadline, to the next minute, ten minutes at least', () => {
    expect(renewalCheckoutExpiryMinutes(new Date('2026-03-09T12:00:00Z'), now)).toBe(7 * 24 * 60);
    expect(renewalCheckoutExpiryMinutes(new Date('2026-03-02T13:00:00.001Z'), now)).toBe(61);
    expect(renewalCheckoutExpiryMinutes(new Date('2026-03-02T12:03:00Z'), now)).toBe(10);
    expect(renewalCheckoutExpiryMinutes(new Date('2026-03-01T12:00:00Z'), now)).toBe(10);
  });
});

describe('recurrenceBillingOf', () => {
  const recurring = { id: 'p_r', type: 'recurring' as const, interval: 'month' as const, intervalCount: 1 };
  const once = { id: 'p_o', type: 'one_time' as const };
  const withRecurrence = { gatewayRecurrence: true, pixAutomatico: false };
  const without = { gatewayRecurrence: false, pixAutomatico: false };
  it('unsent, follows the gateway: its own recurrence where it bills one, manual renewals otherwise', () => {
    expect(recurrenceBillingOf(undefined, recurring, withRecurrence)).toBe('gateway');
    expect(recurrenceBillingOf(undefined, recurring, without)).toBe('manual');
    expect(recurrenceBillingOf(undefined, once, without)).toBe('gateway');
  });
  it('sent, is kept; gateway where the gateway bills none is refused, not changed', () => {
    expect(recurrenceBillingOf('manual', recurring, withRecurrence)).toBe('manual');
    expect(recurrenceBillingOf('gateway', recurring, withRecurrence)).toBe('gateway');
    expect(recurrenceBillingOf('gateway', recurring, without)).toMatchObject({
      code: 'gateway_recurrence_unavailable',
    });
    expect(recurrenceBillingOf('gateway', once, without)).toBe('gateway');
  });
  it('pix_automatico: a gateway that offers it, and a price whose interval the BCB has a periodicity for', () => {
    const pix = { gatewayRecurrence: false, pixAutomatico: true };
    expect(recurrenceBillingOf('pix_automatico', recurring, pix)).toBe('pix_automatico');
    expect(recurrenceBillingOf('pix_automatico', { ...recurring, interval: 'week' }, pix)).toBe('pix_automatico');
    expect(recurrenceBillingOf('pix_automatico', recurring, without)).toMatchObject({
      code: 'pix_automatico_unavailable',
    });
    for (const price of [{ ...recurring, interval: 'day' as const }, { ...recurring, intervalCount: 2 }, once]) {
      expect(recurrenceBillingOf('pix_automatico', price, pix)).toMatchObject({ code: 'pix_automatico_not_allowed' });
    }
  });
  it('offers the buyer Pix Automático where the checkout is not one already and the rules allow it', () => {
    const facts = { price: recurring, recurrenceBilling: 'manual' as const, trial: false, ofSubscription: false };
    expect(offersPixAutomaticoOptIn(facts, { pixAutomatico: true })).toBe(true);
    expect(offersPixAutomaticoOptIn(facts, { pixAutomatico: false })).toBe(false);
    expect(offersPixAutomaticoOptIn({ ...facts, recurrenceBilling: 'pix_automatico' }, { pixAutomatico: true })).toBe(
      false,
    );
    expect(offersPixAutomaticoOptIn({ ...facts, trial: true }, { pixAutomatico: true })).toBe(false);
    expect(offersPixAutomaticoOptIn({ ...facts, ofSubscription: true }, { pixAutomatico: true })).toBe(false);
    expect(offersPixAutomaticoOptIn({ ...facts, price: once }, { pixAutomatico: true })).toBe(false);
  });
  it('asks the adapter: the simulator and the HTTP adapter bill recurrence, Mercado Pago none', () => {
    const adapters = [SimulatedGateway, HttpGateway, MercadoPagoGateway].map(
      (adapter) => Object.create(adapter.prototype) as PaymentGateway,
    );
    expect(adapters.map((gateway) => offersRecurringBilling(gateway))).toEqual([true, true, false]);
    expect(adapters.map((gateway) => offersSandboxRecurringBilling(gateway))).toEqual([true, true, false]);
    // The sandbox routes' controls (pay a pix, fail an invoice…) only where the simulator is embedded.
    expect(adapters.map((gateway) => offersSandboxControls(gateway))).toEqual([true, false, false]);
  });
  it('asks the adapter which rails it has: Pix Automático on the simulator, over HTTP and on Efí; cards everywhere but Efí', () => {
    const adapters = [SimulatedGateway, HttpGateway, MercadoPagoGateway, EfiGateway].map(
      (adapter) => Object.create(adapter.prototype) as PaymentGateway,
    );
    expect(adapters.map((gateway) => offersPixAutomatico(gateway))).toEqual([true, true, false, true]);
    expect(adapters.map((gateway) => offersSandboxPixAutomatico(gateway))).toEqual([true, true, false, false]);
    expect(adapters.map((gateway) => offersCardPayments(gateway))).toEqual([true, true, true, false]);
  });
});
