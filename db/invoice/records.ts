import type { InferEntity } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { SubscriptionInvoice } from '../entities/invoice.ts';
import { kyselyOf } from '../kysely.ts';
import type { InvoiceRecord } from '../../contracts/invoice.ts';

/**
 * The invoice object's repository: the only code that reads or writes `subscription_invoices`, a
 * subscription's extra charges, each run by its own workflow (workflows/invoice.ts).
 */

/** An invoice's row as the entity declares it (dates as the YYYY-MM-DD they were given). */
export type InvoiceRow = InferEntity<typeof SubscriptionInvoice>;

const iso = (d: Date | null | undefined) => (d == null ? null : d.toISOString());

/** The invoice's record, as its events carry it and its workflow's Update answers it. */
export function invoiceRecord(i: InvoiceRow): InvoiceRecord {
  return {
    id: i.id,
    number: i.number,
    gateway_invoice_id: i.gatewayInvoiceId ?? null,
    subscription_id: i.subscriptionId,
    organization_id: i.organizationId,
    amount: i.amount,
    currency: i.currency,
    description: i.description ?? null,
    due_date: i.dueDate,
    expiration_date: i.expirationDate ?? null,
    payment_method: 'credit',
    status: i.status,
    no_fees_installments: i.noFeesInstallments,
    failure_reason: i.failureReason ?? null,
    transaction_id: i.transactionId ?? null,
    paid_at: iso(i.paidAt),
    created_at: i.createdAt.toISOString(),
    modified_at: i.modifiedAt.toISOString(),
    workflow_id: i.workflowId,
  };
}

/** The invoice `id`; `lock` holds its row until the transaction ends (its settlement). */
export async function findInvoice(
  em: EntityManager,
  id: string,
  options: { lock?: boolean } = {},
): Promise<InvoiceRow | null> {
  const query = kyselyOf(em).selectFrom('subscription_invoices').selectAll().where('id', '=', id);
  return (await (options.lock ? query.forUpdate() : query).executeTakeFirst()) ?? null;
}

/** The organization's invoice `id` of subscription `subscriptionId`. */
export async function findOwnInvoice(
  em: EntityManager,
  scope: { organizationId: string; subscriptionId: string },
  id: string,
): Promise<InvoiceRow | null> {
  const row = await kyselyOf(em)
    .selectFrom('subscription_invoices')
    .selectAll()
    .where('id', '=', id)
    .where('subscriptionId', '=', scope.subscriptionId)
    .where('organizationId', '=', scope.organizationId)
    .executeTakeFirst();
  return row ?? null;
}

/** The workflow of our invoice made at the gateway as `gatewayInvoiceId`, if one of ours is. */
export async function invoiceWorkflowOfGateway(em: EntityManager, gatewayInvoiceId: string): Promise<string | null> {
  const row = await kyselyOf(em)
    .selectFrom('subscription_invoices')
    .select('workflowId')
    .where('gatewayInvoiceId', '=', gatewayInvoiceId)
    .executeTakeFirst();
  return row?.workflowId ?? null;
}

/**
 * Our invoices made at the gateway as these ids (the reference the gateway's charge of an invoice
 * carries), with their workflows and organizations; the ids none of ours was made as are left out.
 */
export async function invoicesOfGatewayInvoices(
  em: EntityManager,
  gatewayInvoiceIds: string[],
): Promise<{ id: string; gatewayInvoiceId: string; workflowId: string; organizationId: string }[]> {
  if (gatewayInvoiceIds.length === 0) return [];
  const rows = await kyselyOf(em)
    .selectFrom('subscription_invoices')
    .select(['id', 'gatewayInvoiceId', 'workflowId', 'organizationId'])
    .where('gatewayInvoiceId', 'in', gatewayInvoiceIds)
    .execute();
  return rows.map((r) => ({ ...r, gatewayInvoiceId: r.gatewayInvoiceId! }));
}

/** Our invoice whose charge is this transaction of ours, with its workflow; null when none is. */
export async function invoiceOfTransaction(
  em: EntityManager,
  transactionId: string,
): Promise<{ id: string; workflowId: string } | null> {
  const row = await kyselyOf(em)
    .selectFrom('subscription_invoices')
    .select(['id', 'workflowId'])
    .where('transactionId', '=', transactionId)
    .executeTakeFirst();
  return row ?? null;
}

/** The subscription's invoices still pending, by number. */
export async function pendingInvoiceIds(em: EntityManager, subscriptionId: string): Promise<string[]> {
  const rows = await kyselyOf(em)
    .selectFrom('subscription_invoices')
    .select('id')
    .where('subscriptionId', '=', subscriptionId)
    .where('status', '=', 'pending')
    .orderBy('number')
    .execute();
  return rows.map((r) => r.id);
}

export async function insertInvoice(
  tx: EntityManager,
  invoice: Omit<InvoiceRow, 'failureReason' | 'transactionId' | 'paidAt'>,
): Promise<InvoiceRow> {
  return kyselyOf(tx).insertInto('subscription_invoices').values(invoice).returningAll().executeTakeFirstOrThrow();
}

/** A pending invoice's outcome: its status, why it failed, its transaction, when it was paid. */
export async function writeInvoiceOutcome(
  tx: EntityManager,
  id: string,
  outcome: Pick<InvoiceRow, 'status' | 'failureReason' | 'transactionId' | 'paidAt' | 'modifiedAt'>,
): Promise<InvoiceRow> {
  return kyselyOf(tx)
    .updateTable('subscription_invoices')
    .set(outcome)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

const SORTABLE = ['createdAt', 'dueDate', 'amount', 'id'] as const;

/** A page of the subscription's invoices (sorted by `orderBy`'s properties, in its order), and how many there are. */
export async function listInvoices(
  em: EntityManager,
  filter: { organizationId: string; subscriptionId: string; status?: InvoiceRow['status'] },
  page: { orderBy: Record<string, 'asc' | 'desc'>; limit: number; offset: number },
): Promise<{ invoices: InvoiceRow[]; total: number }> {
  const db = kyselyOf(em);
  let where = db
    .selectFrom('subscription_invoices')
    .where('organizationId', '=', filter.organizationId)
    .where('subscriptionId', '=', filter.subscriptionId);
  if (filter.status) where = where.where('status', '=', filter.status);
  let list = where.selectAll();
  for (const [property, direction] of Object.entries(page.orderBy)) {
    const column = SORTABLE.find((c) => c === property);
    if (column) list = list.orderBy(column, direction);
  }
  const [invoices, count] = await Promise.all([
    list.limit(page.limit).offset(page.offset).execute(),
    where.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { invoices, total: Number(count.n) };
}
