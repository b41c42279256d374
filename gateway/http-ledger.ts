import { z } from 'zod';
import type { LedgerRow } from '../domain/reconciliation.ts';
import type { LedgerWindow } from './port.ts';
import { timestamp } from './http-fields.ts';

/**
 * `GET /v1/ledger?from=…&to=…` (decision 0073): the money the gateway moved in a window, one signed
 * row per movement, in cents. Shared by the HTTP adapter and the simulated-gateway server.
 */

export const wireLedgerQuery = z.object({ from: timestamp, to: timestamp });

const wireLedgerRow = z.object({
  kind: z.enum(['payment', 'refund', 'fee', 'dispute', 'withholding', 'payout']),
  transaction_id: z.string().nullable(),
  reference: z.string().nullable(),
  amount: z.number().int(),
  installment_number: z.number().int().positive().nullable(),
  installments: z.number().int().positive().nullable(),
  status: z.string().nullable(),
  release_date: timestamp.nullable(),
});

export const wireLedger = z.object({ data: z.array(wireLedgerRow) });
export type WireLedger = z.infer<typeof wireLedger>;

export function ledgerQueryPath(path: string, window: LedgerWindow): string {
  const query = new URLSearchParams({ from: window.from.toISOString(), to: window.to.toISOString() });
  return `${path}?${query.toString()}`;
}

export function ledgerToWire(rows: LedgerRow[]): WireLedger {
  return {
    data: rows.map((row) => ({
      kind: row.kind,
      transaction_id: row.gatewayId,
      reference: row.reference,
      amount: row.amount,
      installment_number: row.installment?.number ?? null,
      installments: row.installment?.of ?? null,
      status: row.status ?? null,
      release_date: row.releaseDate ?? null,
    })),
  };
}

export function ledgerFromWire(wire: WireLedger): LedgerRow[] {
  return wire.data.map((row) => ({
    kind: row.kind,
    gatewayId: row.transaction_id,
    reference: row.reference,
    amount: row.amount,
    installment:
      row.installment_number !== null && row.installments !== null
        ? { number: row.installment_number, of: row.installments }
        : null,
    status: row.status,
    releaseDate: row.release_date,
  }));
}
