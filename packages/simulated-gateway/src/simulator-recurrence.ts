import { randomBytes } from 'node:crypto';
import type { Row, Sql } from './database.ts';
import { addInterval, isoDate as isoDateOf, type PeriodInterval } from '../../../domain/periods.ts';
import {
  GatewayError,
  type CardToken,
  type DeclineReason,
  type GatewayCallback,
  type GatewayInvoice,
  type GatewayInvoiceInput,
  type GatewaySubscription,
  type GatewaySubscriptionInput,
  type RecurrencePlan,
  type RecurrencePlanInput,
} from '../../../gateway/port.ts';
import { invoiceNotice, transactionNotice } from './simulator-callbacks.ts';
import { declineReasonOf, findCard, requireBuyer } from './simulator-cards.ts';
import { cardTokenOf, INVOICE_COLUMNS, newId, toInvoice, toSubscription } from './simulator-rows.ts';
import { authorizationCode, insertTransaction, recordCapture } from './simulator-transactions.ts';

/**
 * The simulator's recurrence: plans, subscriptions, their invoices, and every way an invoice is
 * charged. Each function runs in the caller's transaction (`sql`); `clock` is the simulator's, and
 * the callbacks a change owes go on `notices`, for the caller to deliver once it has committed.
 */

export async function insertRecurrencePlan(sql: Sql, input: RecurrencePlanInput): Promise<RecurrencePlan> {
  const id = `plan_${randomBytes(12).toString('hex')}`;
  const rows = await sql(
    `insert into gateway_sim.recurrence_plans (id, reference, name, amount, currency, interval, interval_count)
     values (?, ?, ?, ?, ?, ?, ?) returning created_at`,
    [id, input.reference, input.name, input.amount, input.currency, input.interval, input.intervalCount],
  );
  return {
    id,
    reference: input.reference,
    amount: input.amount,
    currency: input.currency,
    interval: input.interval,
    intervalCount: input.intervalCount,
    createdAt: new Date(rows[0]!.created_at as string).toISOString(),
  };
}

export async function insertSubscription(sql: Sql, input: GatewaySubscriptionInput): Promise<GatewaySubscription> {
  const [plan] = await sql('select id from gateway_sim.recurrence_plans where id = ?', [input.planId]);
  if (!plan) throw new GatewayError(`Unknown recurrence plan ${input.planId}`, false);
  await requireBuyer(sql, input.buyerId);
  await findCard(sql, input.cardToken);
  const [row] = await sql(
    `insert into gateway_sim.subscriptions (id, reference, plan_id, buyer_id, card_id, start_date, status)
     values (?, ?, ?, ?, ?, ?, 'active') returning *`,
    [newId('sub'), input.reference, input.planId, input.buyerId, input.cardToken, input.startDate],
  );
  return toSubscription(row!);
}

export async function markSubscriptionCanceled(sql: Sql, subscriptionId: string): Promise<GatewaySubscription> {
  const [row] = await sql(
    `update gateway_sim.subscriptions set status = 'canceled', canceled_at = coalesce(canceled_at, now())
     where id = ? returning *`,
    [subscriptionId],
  );
  if (!row) throw new GatewayError(`Unknown subscription ${subscriptionId}`, false);
  return toSubscription(row);
}

/**
 * SimulatedGateway.changeSubscriptionPlan's change. Only plan_id moves: openCycle prices a new cycle
 * from the subscription's plan, while billNextCycle charges an opened cycle at its invoice's amount,
 * so the new plan bills from the next cycle opened on. The row lock orders it with billNextCycle's.
 */
export async function moveSubscriptionToPlan(
  sql: Sql,
  subscriptionId: string,
  planId: string,
): Promise<GatewaySubscription> {
  const [sub] = await sql(
    `select s.*, p.currency, p.interval, p.interval_count
     from gateway_sim.subscriptions s join gateway_sim.recurrence_plans p on p.id = s.plan_id
     where s.id = ? for update of s`,
    [subscriptionId],
  );
  if (!sub) throw new GatewayError(`Unknown subscription ${subscriptionId}`, false);
  if (sub.status !== 'active') throw new GatewayError('Cannot change the plan of a canceled subscription', false);
  if (sub.plan_id === planId) return toSubscription(sub);
  const [plan] = await sql('select currency, interval, interval_count from gateway_sim.recurrence_plans where id = ?', [
    planId,
  ]);
  if (!plan) throw new GatewayError(`Unknown recurrence plan ${planId}`, false);
  // A currency is its ISO 4217 code in either case: callers send 'brl' or 'BRL'.
  if ((plan.currency as string).toUpperCase() !== (sub.currency as string).toUpperCase()) {
    throw new GatewayError(
      `Plan ${planId} is in ${String(plan.currency)}, the subscription in ${String(sub.currency)}`,
      false,
    );
  }
  if (plan.interval !== sub.interval || Number(plan.interval_count) !== Number(sub.interval_count)) {
    throw new GatewayError(
      `Plan ${planId} renews every ${Number(plan.interval_count)} ${String(plan.interval)}, the subscription every ` +
        `${Number(sub.interval_count)} ${String(sub.interval)}`,
      false,
    );
  }
  const [row] = await sql('update gateway_sim.subscriptions set plan_id = ? where id = ? returning *', [
    planId,
    subscriptionId,
  ]);
  return toSubscription(row!);
}

export async function insertInvoice(sql: Sql, input: GatewayInvoiceInput): Promise<GatewayInvoice> {
  const [sub] = await sql('select status from gateway_sim.subscriptions where id = ?', [input.subscriptionId]);
  if (!sub) throw new GatewayError(`Unknown subscription ${input.subscriptionId}`, false);
  if (sub.status !== 'active') throw new GatewayError('Cannot invoice a canceled subscription', false);
  const [row] = await sql(
    `insert into gateway_sim.invoices
       (id, subscription_id, amount, currency, description, status, due_date, expiration_date, no_fees_installments)
     values (?, ?, ?, ?, ?, 'pending', ?, ?, ?) returning ${INVOICE_COLUMNS}`,
    [
      newId('inv'),
      input.subscriptionId,
      input.amount,
      input.currency,
      input.description ?? null,
      input.dueDate,
      input.expirationDate ?? null,
      input.noFeesInstallments,
    ],
  );
  return toInvoice(row!);
}

/** SimulatedGateway.cancelInvoice's change: an unpaid invoice voided, a voided one as it is. */
export async function voidInvoice(
  sql: Sql,
  clock: () => Date,
  invoiceId: string,
  notices: GatewayCallback[],
): Promise<GatewayInvoice> {
  const [row] = await sql(`select ${INVOICE_COLUMNS} from gateway_sim.invoices where id = ? for update`, [invoiceId]);
  if (!row) throw new GatewayError(`Unknown invoice ${invoiceId}`, false);
  if (row.status === 'voided') return toInvoice(row);
  if (row.status === 'paid') throw new GatewayError('Cannot void an invoice that is paid', false);
  const [voided] = await sql(
    `update gateway_sim.invoices set status = 'voided' where id = ? returning ${INVOICE_COLUMNS}`,
    [invoiceId],
  );
  const invoice = toInvoice(voided!);
  notices.push(invoiceNotice(invoice, clock()));
  return invoice;
}

/** The sandbox's settling of a pending invoice, paid or refused; the same outcome again returns it as it is. */
export async function settlePendingInvoice(
  sql: Sql,
  clock: () => Date,
  invoiceId: string,
  declineReason: DeclineReason | null,
  notices: GatewayCallback[],
): Promise<GatewayInvoice> {
  const [inv] = await sql(`select ${INVOICE_COLUMNS} from gateway_sim.invoices where id = ? for update`, [invoiceId]);
  if (!inv) throw new GatewayError(`Unknown invoice ${invoiceId}`, false);
  const invoice = toInvoice(inv);
  // Settled so already: a paid invoice however it was paid, a failed one by a refused charge.
  if (invoice.status === 'paid' && !declineReason) return invoice;
  if (invoice.status === 'failed' && declineReason && invoice.transactionId) return invoice;
  if (invoice.status !== 'pending') {
    throw new GatewayError(`Cannot ${declineReason ? 'charge' : 'pay'} an invoice that is ${invoice.status}`, false);
  }
  const [holder] = await sql(
    `select s.buyer_id, c.* from gateway_sim.subscriptions s join gateway_sim.cards c on c.id = s.card_id
     where s.id = ?`,
    [invoice.subscriptionId],
  );
  const card = cardTokenOf(holder!);
  return chargeInvoice(sql, clock, invoice, card, holder!.buyer_id as string, declineReason, notices);
}

/** SimulatedGateway.billSubscription's run: the earliest unpaid cycle, or the next one, charged to the card. */
export async function billNextCycle(
  sql: Sql,
  clock: () => Date,
  subscriptionId: string,
  notices: GatewayCallback[],
): Promise<GatewayInvoice> {
  const sub = await lockedBillable(sql, subscriptionId);
  const unpaid = await earliestUnpaidCycle(sql, subscriptionId);
  const invoice = unpaid ?? (await openCycle(sql, subscriptionId, sub));
  return chargeCycle(sql, clock, invoice, sub, notices);
}

/**
 * SimulatedGateway.billSandboxCycle's run: the recurrence as on cycle `cycle`'s due date (or a retry
 * day), driven by a subscription's test clock. A paid cycle is left as it is; an unpaid one is charged
 * again; the next one is opened and charged. A cycle further ahead is refused: the cycles before it
 * come first.
 */
export async function billCycle(
  sql: Sql,
  clock: () => Date,
  subscriptionId: string,
  cycle: number,
  notices: GatewayCallback[],
): Promise<GatewayInvoice> {
  const sub = await lockedBillable(sql, subscriptionId);
  const [row] = await sql(
    `select ${INVOICE_COLUMNS} from gateway_sim.invoices where subscription_id = ? and cycle = ?`,
    [subscriptionId, cycle],
  );
  if (row?.status === 'paid') return toInvoice(row);
  const unpaid = await earliestUnpaidCycle(sql, subscriptionId);
  if (unpaid && unpaid.cycle !== cycle) {
    throw new GatewayError(`Cycle ${unpaid.cycle} of ${subscriptionId} is unpaid: cycle ${cycle} waits for it`, false);
  }
  const invoice = unpaid ?? (await openCycle(sql, subscriptionId, sub));
  if (invoice.cycle !== cycle) {
    throw new GatewayError(`The next cycle of ${subscriptionId} is ${invoice.cycle}, not ${cycle}`, false);
  }
  return chargeCycle(sql, clock, invoice, sub, notices);
}

/** The subscription and its plan's terms, locked (so two runs of its recurrence follow one another); active only. */
async function lockedBillable(sql: Sql, subscriptionId: string): Promise<Row> {
  const [sub] = await sql(
    `select s.status, s.card_id, s.buyer_id, s.start_date::text as start_date, p.amount, p.currency, p.interval,
            p.interval_count
     from gateway_sim.subscriptions s join gateway_sim.recurrence_plans p on p.id = s.plan_id
     where s.id = ? for update of s`,
    [subscriptionId],
  );
  if (!sub) throw new GatewayError(`Unknown subscription ${subscriptionId}`, false);
  if (sub.status !== 'active') throw new GatewayError('Cannot bill a canceled subscription', false);
  return sub;
}

async function earliestUnpaidCycle(sql: Sql, subscriptionId: string): Promise<GatewayInvoice | null> {
  const [unpaid] = await sql(
    `select ${INVOICE_COLUMNS} from gateway_sim.invoices
     where subscription_id = ? and cycle is not null and status <> 'paid' order by cycle limit 1`,
    [subscriptionId],
  );
  return unpaid ? toInvoice(unpaid) : null;
}

/** A cycle's invoice charged to the subscription's card (its scripted outcome decides). */
async function chargeCycle(sql: Sql, clock: () => Date, invoice: GatewayInvoice, sub: Row, notices: GatewayCallback[]) {
  const { token, outcome } = await findCard(sql, sub.card_id as string);
  const declineReason = declineReasonOf(outcome, token, null, clock);
  return chargeInvoice(sql, clock, invoice, token, sub.buyer_id as string, declineReason, notices);
}

/**
 * One charge of an invoice to the subscription's card (every way an invoice is charged comes here):
 * its transaction, captured unless refused, the invoice paid or failed with it, and both notices.
 */
async function chargeInvoice(
  sql: Sql,
  clock: () => Date,
  invoice: GatewayInvoice,
  card: CardToken,
  buyerId: string,
  declineReason: DeclineReason | null,
  notices: GatewayCallback[],
): Promise<GatewayInvoice> {
  const { amount } = invoice;
  const now = clock();
  const tx = await insertTransaction(sql, {
    reference: invoice.id,
    status: declineReason ? 'failed' : 'succeeded',
    paymentType: 'credit',
    amount,
    baseAmount: amount,
    currency: invoice.currency,
    installments: 1,
    installmentAmounts: [amount],
    authorizationCode: declineReason ? null : authorizationCode(),
    declineReason,
    cardId: card.id,
    card,
    buyerId,
    confirmedAt: declineReason ? null : now,
    now,
  });
  const charged = declineReason ? tx : await recordCapture(sql, tx.id, amount, null);
  const [row] = await sql(
    `update gateway_sim.invoices set status = ?, paid_at = ?, transaction_id = ?, attempts = attempts + 1
     where id = ? returning ${INVOICE_COLUMNS}`,
    [declineReason ? 'failed' : 'paid', declineReason ? null : now, tx.id, invoice.id],
  );
  const billed = toInvoice(row!);
  notices.push(invoiceNotice(billed, clock()), transactionNotice(charged, clock()));
  return billed;
}

/** The invoice of a subscription's next cycle, due that many plan intervals after its start date. */
async function openCycle(sql: Sql, subscriptionId: string, sub: Row): Promise<GatewayInvoice> {
  const [last] = await sql(
    'select max(cycle) as cycle from gateway_sim.invoices where subscription_id = ? and cycle is not null',
    [subscriptionId],
  );
  const cycle = last?.cycle == null ? 0 : Number(last.cycle) + 1;
  const start = new Date(`${sub.start_date as string}T00:00:00Z`);
  const due = addInterval(start, sub.interval as PeriodInterval, Number(sub.interval_count) * cycle);
  const [row] = await sql(
    `insert into gateway_sim.invoices
       (id, subscription_id, amount, currency, status, due_date, no_fees_installments, cycle)
     values (?, ?, ?, ?, 'pending', ?, true, ?) returning ${INVOICE_COLUMNS}`,
    [newId('inv'), subscriptionId, Number(sub.amount), sub.currency, isoDateOf(due), cycle],
  );
  return toInvoice(row!);
}
