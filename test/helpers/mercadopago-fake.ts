import { afterAll, beforeAll } from '@jest/globals';
import { fetch as undiciFetch, getGlobalDispatcher, MockAgent, setGlobalDispatcher, type Dispatcher } from 'undici';
import type { MpPayment } from '../../gateway/mercadopago-payments.ts';
import { MP } from './mercadopago-mock.ts';

/**
 * A stateful stand-in for Mercado Pago's payments, customers and card tokens, answering the SDK
 * through an undici MockAgent (no network), for tests that run whole workflows on the adapter: it
 * keeps payments, honours X-Idempotency-Key as Mercado Pago does (the same key answers the first
 * result), approves a card unless its holder is `OTHE`, leaves pix and boleto pending until the test
 * pays them, and records every request. Shapes follow test/fixtures/mercadopago (the API reference).
 */
export interface FakeRequest {
  method: string;
  path: string;
  key: string | null;
  body: Record<string, any> | null;
}

type Reply = { statusCode: number; data: object };

export class FakeMercadoPago {
  readonly requests: FakeRequest[] = [];
  readonly payments = new Map<string, MpPayment & Record<string, any>>();
  private readonly answered = new Map<string, Reply>();
  private readonly tokens = new Map<string, { customerId?: string; cardId?: string; holder: string }>();
  private readonly customers = new Map<string, { id: string; email: string }>();
  private next = 7_000_000_000;
  /**
   * Refuse a payment with a token minted from a kept card (no security code), as Mercado Pago does
   * for an application not enabled for payments without CVV: 400, cause 3031
   * (https://www.mercadopago.com.br/developers/en/support/37020).
   */
  refuseKeptCardTokens = false;

  /** The buyer paid a pending pix or boleto (at their bank). */
  pay(paymentId: string): void {
    const p = this.payments.get(paymentId)!;
    Object.assign(p, { status: 'approved', status_detail: 'accredited', date_approved: new Date().toISOString() });
  }

  /** A browser's single-use token, as MercadoPago.js makes it with the public key. */
  browserToken(holder = 'APRO'): string {
    const id = `tok${this.next++}`;
    this.tokens.set(id, { holder });
    return id;
  }

  handle(method: string, url: string, key: string | null, body: Record<string, any> | null): Reply {
    this.requests.push({ method, path: url, key, body });
    const once = key && method !== 'GET' ? `${method} ${url.split('?')[0]} ${key}` : null;
    if (once && this.answered.has(once)) return this.answered.get(once)!;
    const reply = this.route(method, new URL(url, MP), body ?? {});
    if (once && reply.statusCode < 500) this.answered.set(once, reply);
    return reply;
  }

  private route(method: string, url: URL, body: Record<string, any>): Reply {
    const path = url.pathname;
    const ok = (data: object, statusCode = 200) => ({ statusCode, data });
    let m: RegExpExecArray | null;
    if (method === 'GET' && path === '/v1/customers/search') {
      const found = [...this.customers.values()].filter((c) => c.email === url.searchParams.get('email'));
      return ok({ paging: { total: found.length }, results: found });
    }
    if (method === 'POST' && path === '/v1/customers') {
      const customer = { id: `${this.next++}-cust`, email: body.email };
      this.customers.set(customer.id, customer);
      return ok(customer, 201);
    }
    if (method === 'POST' && (m = /^\/v1\/customers\/([^/]+)\/cards$/.exec(path))) {
      const token = this.tokens.get(body.token);
      if (!token || token.cardId)
        return ok({ message: 'Card Token not found', error: 'bad_request', status: 400, cause: [] }, 400);
      token.cardId = `card${this.next++}`;
      this.tokens.set(`saved:${token.cardId}`, { holder: token.holder, customerId: m[1] });
      return ok({ ...this.cardOf(token.holder), id: token.cardId, customer_id: m[1] }, 201);
    }
    if (method === 'POST' && path === '/v1/card_tokens') {
      const saved = this.tokens.get(`saved:${body.card_id}`);
      if (!saved) return ok({ message: 'not found', error: 'not_found', status: 404, cause: [] }, 404);
      const id = `tok${this.next++}`;
      this.tokens.set(id, { holder: saved.holder, customerId: saved.customerId });
      return ok({ id, card_id: body.card_id, status: 'active' }, 201);
    }
    if (method === 'POST' && path === '/v1/payments') {
      if (this.refuseKeptCardTokens && this.tokens.get(body.token)?.customerId) {
        const cause = [{ code: 3031, description: "security_code_id can't be null", data: null }];
        return ok({ message: "security_code_id can't be null", error: 'bad_request', status: 400, cause }, 400);
      }
      return ok(this.createPayment(body), 201);
    }
    if (method === 'GET' && path === '/v1/payments/search') {
      const found = [...this.payments.values()].filter(
        (p) => p.external_reference === url.searchParams.get('external_reference'),
      );
      return ok({ paging: { total: found.length }, results: found.reverse() });
    }
    if ((m = /^\/v1\/payments\/(\d+)$/.exec(path))) {
      const p = this.payments.get(m[1]!);
      if (!p) return ok({ message: 'Payment not found', error: 'not_found', status: 404, cause: [] }, 404);
      if (method === 'PUT') this.update(p, body);
      return ok(p);
    }
    if (method === 'POST' && (m = /^\/v1\/payments\/(\d+)\/refunds$/.exec(path))) {
      const p = this.payments.get(m[1]!)!;
      const amount = body.amount ?? p.transaction_amount! - (p.transaction_amount_refunded ?? 0);
      p.transaction_amount_refunded = Math.round(((p.transaction_amount_refunded ?? 0) + amount) * 100) / 100;
      if (p.transaction_amount_refunded >= p.transaction_amount!)
        Object.assign(p, { status: 'refunded', status_detail: 'refunded' });
      else p.status_detail = 'partially_refunded';
      return ok({ id: this.next++, payment_id: Number(p.id), amount, status: 'approved' }, 201);
    }
    return ok({ message: `The fake has no ${method} ${path}`, error: 'not_found', status: 404, cause: [] }, 404);
  }

  private cardOf(holder: string) {
    return {
      first_six_digits: '503143',
      last_four_digits: '6351',
      expiration_month: 11,
      expiration_year: 2030,
      payment_method: { id: 'master' },
      cardholder: { name: holder },
    };
  }

  private createPayment(body: Record<string, any>): MpPayment {
    const id = String(this.next++);
    const common = {
      id,
      date_created: new Date().toISOString(),
      currency_id: 'BRL',
      external_reference: body.external_reference,
      metadata: body.metadata,
      transaction_amount: body.transaction_amount,
      transaction_amount_refunded: 0,
      installments: body.installments ?? 1,
      payer: { id: body.payer?.id ?? null },
    };
    let payment: MpPayment & Record<string, any>;
    if (body.payment_method_id === 'pix') {
      payment = {
        ...common,
        payment_method_id: 'pix',
        payment_type_id: 'bank_transfer',
        status: 'pending',
        status_detail: 'pending_waiting_transfer',
        date_of_expiration: body.date_of_expiration,
        point_of_interaction: { transaction_data: { qr_code: `00020126pix${id}`, qr_code_base64: 'iVBORw0KGgo=' } },
      };
    } else if (body.payment_method_id === 'bolbradesco') {
      payment = {
        ...common,
        payment_method_id: 'bolbradesco',
        payment_type_id: 'ticket',
        status: 'pending',
        status_detail: 'pending_waiting_payment',
        date_of_expiration: body.date_of_expiration,
        transaction_details: {
          digitable_line: `23793380296099605974756007205506189120000${id.slice(-6)}`,
          barcode: { content: `2379189120000${id}` },
          external_resource_url: `https://www.mercadopago.com.br/payments/${id}/ticket`,
        },
      };
    } else {
      const holder = this.tokens.get(body.token)?.holder ?? 'APRO';
      const approved = holder !== 'OTHE';
      payment = {
        ...common,
        payment_method_id: 'master',
        payment_type_id: 'credit_card',
        status: approved ? (body.capture === false ? 'authorized' : 'approved') : 'rejected',
        status_detail: approved
          ? body.capture === false
            ? 'pending_capture'
            : 'accredited'
          : 'cc_rejected_other_reason',
        captured: approved && body.capture !== false,
        authorization_code: approved ? '301299' : null,
        date_approved: approved ? new Date().toISOString() : null,
        card: { id: null, ...this.cardOf(holder) },
      };
    }
    this.payments.set(id, payment);
    return payment;
  }

  private update(p: MpPayment & Record<string, any>, body: Record<string, any>): void {
    if (body.capture === true) Object.assign(p, { status: 'approved', status_detail: 'accredited', captured: true });
    if (body.status === 'cancelled') Object.assign(p, { status: 'cancelled', status_detail: 'by_collector' });
  }
}

/**
 * Installs the fake for the calling test file (its own calls to 127.0.0.1, such as the API's, go
 * through): the SDK's global fetch is undici's while the file runs (see mercadopago-mock.ts why).
 */
export function fakeMercadoPago(): FakeMercadoPago {
  const fake = new FakeMercadoPago();
  let original: Dispatcher;
  let agent: MockAgent;
  const builtInFetch = globalThis.fetch;
  beforeAll(() => {
    original = getGlobalDispatcher();
    agent = new MockAgent();
    agent.disableNetConnect();
    agent.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);
    setGlobalDispatcher(agent);
    globalThis.fetch = undiciFetch as unknown as typeof fetch;
    agent
      .get(MP)
      .intercept({ method: (m: string) => ['GET', 'POST', 'PUT'].includes(m), path: () => true })
      .reply((opts) => {
        const headers = Object.fromEntries(
          Object.entries((opts.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), String(v)]),
        );
        const body = typeof opts.body === 'string' && opts.body ? (JSON.parse(opts.body) as Record<string, any>) : null;
        const { statusCode, data } = fake.handle(opts.method, opts.path, headers['x-idempotency-key'] ?? null, body);
        return {
          statusCode,
          data: JSON.stringify(data),
          responseOptions: { headers: { 'content-type': 'application/json' } },
        };
      })
      .persist();
  });
  afterAll(async () => {
    setGlobalDispatcher(original);
    globalThis.fetch = builtInFetch;
    await agent.close();
  });
  return fake;
}
