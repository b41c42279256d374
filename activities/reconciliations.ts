import { Context } from '@temporalio/activity';
import { recordEvent } from '../db/events.ts';
import {
  capturedPaymentsIn,
  gatewayIdsOfPayments,
  ownersOfGatewayPayments,
  paymentsCapturedOutside,
} from '../db/checkout/reconciliation-reads.ts';
import { invoicesOfGatewayInvoices } from '../db/invoice/records.ts';
import { findReportByKey, insertReport } from '../db/reconciliation/records.ts';
import { succeededRefundsIn } from '../db/sale/reconciliation-reads.ts';
import type { Orm } from '../db/orm.ts';
import type {
  DayWindow,
  OrganizationBooks,
  ReconciliationActivities,
  ReconciliationReportSummary,
  RecordReconciliationInput,
  WaitingOwner,
} from '../contracts/reconciliation.ts';
import { checkoutWorkflowId } from '../contracts/checkout.ts';
import type { BookRow, LedgerRow } from '../domain/reconciliation.ts';
import type { PaymentGateway } from '../gateway/port.ts';
import { presentReconciliation } from '../use-cases/schemas/reconciliations.ts';
import { paymentOwnerOf } from '../use-cases/payment-owners.ts';
import { callGateway } from './gateway-failures.ts';

export interface ReconciliationDeps {
  orm: Orm;
  gateway: PaymentGateway;
}

const windowOf = (w: DayWindow) => ({ from: new Date(w.from), to: new Date(w.to) });

export function createReconciliationActivities(deps: ReconciliationDeps) {
  return {
    async readGatewayLedger(window: DayWindow): Promise<LedgerRow[]> {
      Context.current().heartbeat();
      return callGateway(() => deps.gateway.ledger(windowOf(window)));
    },

    readOurBooks: (input) => readOurBooks(deps.orm, input),

    async releaseDatesOf(gatewayTransactionIds: string[]): Promise<Record<string, string | null>> {
      const dates: Record<string, string | null> = {};
      for (const id of gatewayTransactionIds) {
        Context.current().heartbeat(id);
        const payment = await callGateway(() => deps.gateway.getTransaction(id));
        dates[id] = payment?.releaseDate ?? null;
      }
      return dates;
    },

    async waitingOwnerOf(gatewayTransactionId: string): Promise<WaitingOwner | null> {
      const reference = async () =>
        (await callGateway(() => deps.gateway.getTransaction(gatewayTransactionId)))?.reference ?? null;
      const found = await paymentOwnerOf(deps.orm.em.fork(), gatewayTransactionId, reference);
      if (found?.owner.kind === 'checkout') {
        return { kind: 'checkout', workflowId: checkoutWorkflowId(found.owner.checkoutId) };
      }
      if (found?.owner.kind === 'invoice') return { kind: 'invoice', workflowId: found.owner.workflowId };
      return null;
    },

    /** Once per key: a retried write answers the report the first one made. */
    async recordReconciliation(input: RecordReconciliationInput): Promise<ReconciliationReportSummary> {
      const row = await deps.orm.em.fork().transactional(async (tx) => {
        const made = await findReportByKey(tx, input.reportKey);
        if (made) return made;
        const report = await insertReport(tx, input, new Date());
        recordEvent(tx, input.organizationId, 'reconciliation.completed', presentReconciliation(report));
        return report;
      });
      return {
        id: row.id,
        organizationId: row.organizationId,
        day: input.day,
        status: row.status,
        unmatchedTotal: Number(row.unmatchedTotal),
        unmatchedCount: row.unmatchedCount,
        repairsStarted: 0,
      };
    },
  } satisfies ReconciliationActivities;
}

/**
 * Our books of the window through their owners (payments: checkout; refunds: sale), grouped by
 * organization, each with the ledger's rows of its payments: by our record of the payment, else
 * by its reference when that is one of our checkouts or extra-charge invoices. Ledger rows of no organization's are left
 * out of every report (the deployment's gateway account may carry others' money).
 */
async function readOurBooks(
  orm: Orm,
  { window, organizationId, ledger }: Parameters<ReconciliationActivities['readOurBooks']>[0],
): Promise<OrganizationBooks[]> {
  const em = orm.em.fork();
  const w = windowOf(window);
  const [payments, refunds] = await Promise.all([
    capturedPaymentsIn(em, w, organizationId),
    succeededRefundsIn(em, w, organizationId),
  ]);
  const released = [...new Set(ledger.filter((r) => r.kind === 'payment' && r.gatewayId).map((r) => r.gatewayId!))];
  const references = [...new Set(ledger.map((r) => r.reference).filter((r): r is string => !!r))];
  const [refunded, owners, earlier, invoices] = await Promise.all([
    gatewayIdsOfPayments(em, [...new Set(refunds.map((r) => r.transactionId))]),
    ownersOfGatewayPayments(em, ledger),
    paymentsCapturedOutside(em, released, w),
    invoicesOfGatewayInvoices(em, references),
  ]);
  // An extra-charge invoice's charge is tagged with the invoice's gateway id (a lost notice leaves it
  // out of our books until its workflow learns of it).
  for (const i of invoices) owners.byReference.set(i.gatewayInvoiceId, i.organizationId);
  const books = new Map<string, OrganizationBooks>();
  const of = (org: string) => {
    let entry = books.get(org);
    if (!entry) books.set(org, (entry = { organizationId: org, ours: [], theirs: [] }));
    return entry;
  };
  if (organizationId) of(organizationId);
  for (const p of payments) {
    const row: BookRow = {
      kind: 'payment',
      gatewayId: p.gatewayTransactionId,
      reference: p.checkoutId,
      amount: Number(p.capturedAmount),
      status: null,
    };
    of(p.organizationId).ours.push(row);
  }
  // Released today, captured on another day: known to our books, counted on its capture's day.
  for (const p of earlier) {
    if (organizationId && p.organizationId !== organizationId) continue;
    of(p.organizationId).ours.push({
      kind: 'payment',
      gatewayId: p.gatewayTransactionId,
      reference: p.checkoutId,
      amount: 0,
      capturedOnAnotherDay: Number(p.capturedAmount),
    });
  }
  for (const r of refunds) {
    const payment = refunded.get(r.transactionId);
    const row: BookRow = {
      kind: 'refund',
      gatewayId: payment?.gatewayId ?? null,
      reference: payment?.checkoutId ?? null,
      amount: -Number(r.amount),
    };
    of(r.organizationId).ours.push(row);
  }
  for (const row of ledger) {
    const org =
      (row.gatewayId ? owners.byGatewayId.get(row.gatewayId) : undefined) ??
      (row.reference ? owners.byReference.get(row.reference) : undefined);
    if (org && (!organizationId || org === organizationId)) of(org).theirs.push(row);
  }
  return [...books.values()];
}
