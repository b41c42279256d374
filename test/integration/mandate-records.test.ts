import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { GatewayMandate, GatewayMandateCharge } from '../../contracts/pix-automatico.ts';
import { chargeOfGateway, chargesOfMandate, upsertMandateCharge } from '../../db/mandate/charges.ts';
import { mandateOfGateway, mandateOfSubscription, upsertMandate } from '../../db/mandate/mandates.ts';
import { openOrm, type Orm } from '../../db/orm.ts';
import { TEST_DATABASE_URL } from '../helpers/env.ts';
import { makeOrganization } from '../helpers/fixtures.ts';
import { approved, attempt, gatewayCharge, gatewayMandate, seedSubscription } from '../helpers/mandates.ts';

/**
 * The mandate's repository against PostgreSQL (decision 0096): the gateway's notices, handled in any
 * order or twice, end in the same rows; a failed attempt is reported once; one charge per period.
 */
let orm: Orm;
let organizationId: string;
beforeAll(async () => {
  orm = await openOrm(TEST_DATABASE_URL);
  organizationId = (await makeOrganization(orm)).id;
});
afterAll(async () => {
  await orm.close();
});

const NOW = new Date('2026-11-29T10:10:00.000Z');
const LATER = new Date('2026-11-29T11:00:00.000Z');

async function newSubscription() {
  return { organizationId, currency: 'BRL', ...(await seedSubscription(orm, organizationId)) };
}

const sight = (s: Awaited<ReturnType<typeof newSubscription>>, gateway: GatewayMandate, now = NOW) =>
  orm.em.fork().transactional((tx) => upsertMandate(tx, { ...s, gateway }, now));

describe('upsertMandate', () => {
  it('inserts on first sight, then moves forward: approved then a stale created stays approved', async () => {
    const s = await newSubscription();
    const created = gatewayMandate(s.subscriptionId);
    const first = await sight(s, created);
    expect(first.previousStatus).toBeNull();
    expect(first.row).toMatchObject({
      status: 'created',
      gatewayMandateId: created.id,
      subscriptionId: s.subscriptionId,
      startDate: '2026-12-10',
      endDate: null,
      fixedAmount: 4990,
      debtorTaxId: '12345678909',
      qrCode: created.qrCode,
      approvedAt: null,
    });

    const nowApproved = await sight(s, approved(created), LATER);
    expect(nowApproved.previousStatus).toBe('created');
    expect(nowApproved.row.status).toBe('approved');
    expect(nowApproved.row.approvedAt).toEqual(new Date('2026-11-29T10:05:00.000Z'));
    expect(nowApproved.row.qrCode).toBeNull();

    // The creation's notice, delivered late: nothing changes.
    const stale = await sight(s, created, new Date('2026-11-29T12:00:00.000Z'));
    expect(stale.previousStatus).toBe('approved');
    expect(stale.row).toEqual(nowApproved.row);
    expect(await mandateOfSubscription(orm.em.fork(), s.subscriptionId)).toEqual(nowApproved.row);
    expect((await mandateOfGateway(orm.em.fork(), created.id))!.history).toEqual([
      { status: 'created', at: '2026-11-29T10:00:00.000Z' },
      { status: 'approved', at: '2026-11-29T10:05:00.000Z' },
    ]);
  });

  it('ends in the same row whichever order the notices come in, and a repeated notice changes nothing', async () => {
    const [inOrder, reversed] = [await newSubscription(), await newSubscription()];
    const a = gatewayMandate(inOrder.subscriptionId);
    const b = gatewayMandate(reversed.subscriptionId);
    await sight(inOrder, a);
    const last = (await sight(inOrder, approved(a), LATER)).row;
    await sight(reversed, approved(b), NOW);
    const first = (await sight(reversed, b, LATER)).row;
    const strip = ({
      id: _,
      subscriptionId: __,
      customerId: ___,
      gatewayMandateId: ____,
      createdAt: _c,
      updatedAt: _u,
      ...rest
    }: typeof last) => rest;
    expect(strip(first)).toEqual(strip(last));

    const repeated = await sight(inOrder, approved(a), new Date('2026-11-29T13:00:00.000Z'));
    expect(repeated.row.updatedAt).toEqual(last.updatedAt);
  });

  it('records what changes without a new status (the payer lowers their maximum) and the end', async () => {
    const s = await newSubscription();
    const m = approved(gatewayMandate(s.subscriptionId, { fixedAmount: null, minimumAmount: 1000 }));
    await sight(s, m);
    expect((await sight(s, { ...m, payerMaximum: 3000 }, LATER)).row.payerMaximum).toBe(3000);
    const cancelled: GatewayMandate = {
      ...m,
      payerMaximum: 3000,
      status: 'cancelled',
      cancellation: { by: 'payer', code: 'SLDB', description: 'Pedido do pagador' },
      history: [...m.history, { status: 'cancelled', at: '2026-11-29T11:30:00.000Z' }],
    };
    const ended = await sight(s, cancelled, LATER);
    expect(ended.row).toMatchObject({
      status: 'cancelled',
      cancelledBy: 'payer',
      cancellationCode: 'SLDB',
      endedAt: new Date('2026-11-29T11:30:00.000Z'),
    });
    // A final status is never replaced by another final one.
    const expired = await sight(s, { ...m, status: 'expired' }, LATER);
    expect([expired.previousStatus, expired.row.status]).toEqual(['cancelled', 'cancelled']);
  });
});

describe('upsertMandateCharge', () => {
  async function approvedMandate() {
    const s = await newSubscription();
    const gateway = approved(gatewayMandate(s.subscriptionId));
    const { row } = await sight(s, gateway);
    return { s, gateway, row };
  }
  const chargeSight = (
    m: Awaited<ReturnType<typeof approvedMandate>>,
    period: number,
    gateway: GatewayMandateCharge,
    now = NOW,
    retriesRequested?: number,
  ) =>
    orm.em.fork().transactional((tx) =>
      upsertMandateCharge(
        tx,
        {
          organizationId,
          mandateId: m.row.id,
          subscriptionId: m.s.subscriptionId,
          period,
          settlementDate: '2026-12-10',
          ...(retriesRequested === undefined ? {} : { retriesRequested }),
          gateway,
        },
        now,
      ),
    );

  it('completed then a stale active stays completed; the failed attempt is reported once', async () => {
    const m = await approvedMandate();
    const morning = attempt({ status: 'expired', settlementDate: '2026-12-10' });
    const retry = attempt({ kind: 'retry', settlementDate: '2026-12-11', status: 'scheduled' });
    const active = gatewayCharge(m.gateway, 1, { attempts: [morning, retry] });
    const paid = gatewayCharge(m.gateway, 1, {
      ...active,
      status: 'completed',
      attempts: [morning, { ...retry, status: 'paid' }],
      paidAt: '2026-12-11T08:00:00.000Z',
    });

    const first = await chargeSight(m, 1, active);
    expect(first.previousStatus).toBeNull();
    expect(first.newFailures.map((a) => a.endToEndId)).toEqual([morning.endToEndId]);
    expect(first.row).toMatchObject({ status: 'active', failureReason: 'insufficient_funds', dueDate: '2026-12-10' });

    const done = await chargeSight(m, 1, paid, LATER);
    expect(done.previousStatus).toBe('active');
    expect(done.newFailures).toEqual([]);
    expect(done.row).toMatchObject({ status: 'completed', paidAt: new Date('2026-12-11T08:00:00.000Z') });

    const stale = await chargeSight(m, 1, active, new Date('2026-12-12T00:00:00.000Z'));
    expect([stale.previousStatus, stale.newFailures]).toEqual(['completed', []]);
    expect(stale.row).toEqual(done.row);
    expect(await chargeOfGateway(orm.em.fork(), paid.id)).toEqual(done.row);
  });

  it('reports each failure once whatever the order: a later sight with a new failure reports only it', async () => {
    const m = await approvedMandate();
    const one = attempt({ status: 'rejected', rejection: { code: 'AM02', description: 'Acima do limite' } });
    const two = attempt({ kind: 'retry', settlementDate: '2026-12-11', status: 'scheduled' });
    const twoFailed = { ...two, status: 'expired' as const };
    const base = gatewayCharge(m.gateway, 1);

    // The second sight first: both failures, once.
    const late = await chargeSight(m, 1, { ...base, attempts: [one, twoFailed] }, NOW, 1);
    expect(late.newFailures.map((a) => a.endToEndId)).toEqual([one.endToEndId, two.endToEndId]);
    expect(late.row).toMatchObject({ failureReason: 'insufficient_funds', retriesRequested: 1 });
    // The first sight, late: the scheduled attempt does not undo its failure; nothing is new.
    const early = await chargeSight(m, 1, { ...base, attempts: [one, two] }, LATER);
    expect(early.newFailures).toEqual([]);
    expect(early.row.attempts.map((a) => a.status)).toEqual(['rejected', 'expired']);
    expect(early.row.retriesRequested).toBe(1);
    expect(early.row.updatedAt).toEqual(late.row.updatedAt);
    // A third try fails on the last retry: only it is new.
    const three = attempt({
      kind: 'retry',
      settlementDate: '2026-12-14',
      status: 'rejected',
      rejection: { code: 'AC06', description: 'Conta bloqueada' },
    });
    const third = await chargeSight(m, 1, { ...base, attempts: [one, twoFailed, three] }, LATER, 2);
    expect(third.newFailures.map((a) => a.endToEndId)).toEqual([three.endToEndId]);
    expect(third.row).toMatchObject({ failureReason: 'AC06', retriesRequested: 2 });
  });

  it('keeps one charge per mandate and period', async () => {
    const m = await approvedMandate();
    const first = gatewayCharge(m.gateway, 1);
    await chargeSight(m, 1, first);
    // Another reference for the same period is refused by the database.
    const other = gatewayCharge(m.gateway, 1, { reference: `${first.reference}:again` });
    await expect(chargeSight(m, 1, other)).rejects.toThrow(/unique|duplicate/i);
    await chargeSight(m, 2, gatewayCharge(m.gateway, 2, { dueDate: '2027-01-10' }));
    expect((await chargesOfMandate(orm.em.fork(), m.row.id)).map((c) => c.period)).toEqual([1, 2]);
  });
});
