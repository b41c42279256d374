/**
 * Our books against the gateway's ledger (decision 0073). Both sides are lists of signed cents, a
 * credit to the merchant positive: our books know a payment's captured amount and its refunds; the
 * gateway's ledger also knows its fee, disputes (holds and reversals), tax withholdings and, for a
 * payment released by instalment, each instalment's release. Rows are grouped by the gateway's
 * payment id, or by `external_reference` where one side lacks the id, and compared by kind.
 *
 * Every cent that does not match lands on a line with a reason, so that
 * Σ ours − Σ theirs = Σ differences of the unmatched lines, to the cent (`sumsToZero`).
 * Payouts (the balance sent to the bank) move no sale's money and are not compared.
 */

/** A row of our books: a payment we hold as captured, or a refund we recorded against it. */
export interface BookRow {
  kind: 'payment' | 'refund';
  gatewayId: string | null;
  reference: string | null;
  /** Signed cents: a payment positive, a refund negative. */
  amount: number;
  /** The payment's status in our books, in the gateway's words (approved, refunded, …); null for a refund. */
  status?: string | null;
  /**
   * A payment our books captured on another day (an earlier one, as a rule), whose money the gateway's
   * ledger releases on this one (Mercado Pago dates its release report by release, 14 or 30 days after a
   * card's capture): its captured cents, counted on its capture day's report, so this row's `amount` is 0.
   */
  capturedOnAnotherDay?: number;
  /**
   * The gateway's word, asked when its ledger of the day lacks a payment our books captured that day:
   * it releases the money on a later day (its ledger shows it then). Otherwise unset.
   */
  releasedLater?: boolean;
}

export type LedgerKind = 'payment' | 'refund' | 'fee' | 'dispute' | 'withholding' | 'payout';

/** A row of the gateway's ledger. */
export interface LedgerRow {
  kind: LedgerKind;
  gatewayId: string | null;
  reference: string | null;
  /** Signed cents: a payment's gross positive; a fee, refund, dispute hold or withholding negative. */
  amount: number;
  /**
   * For a payment released by instalment: which one this row releases (null: the ledger does not say,
   * as Mercado Pago's release report does not), of how many.
   */
  installment?: { number: number | null; of: number } | null;
  /** The payment's status at the gateway, where the ledger says it. */
  status?: string | null;
  releaseDate?: string | null;
}

export const RECONCILIATION_REASONS = [
  'installment_timing',
  'release_timing',
  'fee',
  'dispute',
  'partial_refund',
  'withholding',
  'missing_in_books',
  'missing_at_gateway',
  'amount_mismatch',
  'status_mismatch',
] as const;
export type ReconciliationReason = (typeof RECONCILIATION_REASONS)[number];

export type LineKind = 'payment' | 'refund' | 'fee' | 'dispute' | 'withholding';

export interface ReconciliationLine {
  kind: LineKind;
  gatewayId: string | null;
  reference: string | null;
  ours: number;
  theirs: number;
  /** ours − theirs; zero on a matched line. */
  difference: number;
  /** null when matched. */
  reason: ReconciliationReason | null;
}

export interface ReconciliationResult {
  lines: ReconciliationLine[];
  oursTotal: number;
  theirsTotal: number;
  /** Σ difference over the unmatched lines; equals oursTotal − theirsTotal. */
  unmatchedTotal: number;
  matchedCount: number;
  unmatchedCount: number;
}

interface Group {
  gatewayId: string | null;
  reference: string | null;
  ours: BookRow[];
  theirs: LedgerRow[];
}

/** One key per payment: its gateway id, or the id its reference is known under, or the reference. */
function groupRows(ours: BookRow[], theirs: LedgerRow[]): Group[] {
  const idByReference = new Map<string, string>();
  for (const row of [...ours, ...theirs]) {
    if (row.gatewayId && row.reference && !idByReference.has(row.reference)) {
      idByReference.set(row.reference, row.gatewayId);
    }
  }
  const groups = new Map<string, Group>();
  let unkeyed = 0;
  const groupOf = (row: BookRow | LedgerRow): Group => {
    const id = row.gatewayId ?? (row.reference ? idByReference.get(row.reference) : undefined) ?? null;
    const key = id ? `id:${id}` : row.reference ? `ref:${row.reference}` : `row:${unkeyed++}`;
    let group = groups.get(key);
    if (!group) {
      group = { gatewayId: id, reference: row.reference, ours: [], theirs: [] };
      groups.set(key, group);
    }
    group.reference ??= row.reference;
    return group;
  };
  for (const row of ours) groupOf(row).ours.push(row);
  for (const row of theirs) if (row.kind !== 'payout') groupOf(row).theirs.push(row);
  return [...groups.values()];
}

const sum = (rows: { amount: number }[]): number => rows.reduce((total, row) => total + row.amount, 0);

/**
 * A payment released by instalment of which the ledger has not every instalment yet. A ledger that
 * names each row's instalment (the simulator's) shows it by the numbers; one that says only how many
 * there are (Mercado Pago's release report, decision 0077) by a part released, more than nothing and
 * less than our books' payment.
 */
function releasesPending(payments: LedgerRow[], ours: number): boolean {
  const of = payments.find((row) => row.installment)?.installment?.of;
  if (!of || of <= 1) return false;
  const numbers = payments.map((row) => row.installment?.number ?? null);
  if (numbers.includes(null)) {
    const released = sum(payments);
    return released > 0 && released < ours;
  }
  return new Set(numbers).size < of;
}

/**
 * A payment whose capture and release fall on different days: the capture's day has no ledger row of it
 * and the gateway says it releases later; the release's day has the ledger's rows of a payment our books
 * captured before, no more than it captured (a part of it: an instalment's share).
 */
function releaseTiming(ours: BookRow[], theirs: LedgerRow[]): ReconciliationReason | null {
  const earlier = ours.filter((row) => row.capturedOnAnotherDay !== undefined);
  if (earlier.length === ours.length && earlier.length > 0) {
    const released = sum(theirs);
    const captured = earlier.reduce((total, row) => total + row.capturedOnAnotherDay!, 0);
    if (released <= 0 || released > captured) return 'amount_mismatch';
    return (theirs.find((row) => row.installment)?.installment?.of ?? 1) > 1 ? 'installment_timing' : 'release_timing';
  }
  if (theirs.length === 0 && ours.every((row) => row.releasedLater)) return 'release_timing';
  return null;
}

function paymentReason(ours: BookRow[], theirs: LedgerRow[]): ReconciliationReason | null {
  const difference = sum(ours) - sum(theirs);
  if (ours.length === 0) {
    if (theirs.length === 0) return null;
    // A later instalment's release of a payment of an earlier day: timing, not a payment we lack.
    return theirs.every((row) => (row.installment?.number ?? 1) > 1) ? 'installment_timing' : 'missing_in_books';
  }
  const timing = releaseTiming(ours, theirs);
  if (timing) return timing;
  if (theirs.length === 0) return 'missing_at_gateway';
  const ourStatus = ours.find((row) => row.status)?.status;
  const theirStatus = theirs.find((row) => row.status)?.status;
  if (ourStatus && theirStatus && ourStatus !== theirStatus) return 'status_mismatch';
  if (difference === 0) return null;
  return releasesPending(theirs, sum(ours)) ? 'installment_timing' : 'amount_mismatch';
}

function refundReason(ours: BookRow[], theirs: LedgerRow[]): ReconciliationReason | null {
  if (sum(ours) === sum(theirs)) return null;
  if (ours.length === 0) return 'missing_in_books';
  if (theirs.length === 0) return 'missing_at_gateway';
  return 'partial_refund';
}

const LEDGER_ONLY: Record<'fee' | 'dispute' | 'withholding', ReconciliationReason> = {
  fee: 'fee',
  dispute: 'dispute',
  withholding: 'withholding',
};

function line(
  group: Group,
  kind: LineKind,
  ours: number,
  theirs: number,
  reason: ReconciliationReason | null,
): ReconciliationLine {
  return {
    kind,
    gatewayId: group.gatewayId,
    reference: group.reference,
    ours,
    theirs,
    difference: ours - theirs,
    reason,
  };
}

/** Matches our books against the gateway's ledger, one line per payment and kind. */
export function reconcile(ours: BookRow[], theirs: LedgerRow[]): ReconciliationResult {
  const lines: ReconciliationLine[] = [];
  for (const group of groupRows(ours, theirs)) {
    for (const kind of ['payment', 'refund'] as const) {
      const mine = group.ours.filter((row) => row.kind === kind);
      const their = group.theirs.filter((row) => row.kind === kind);
      if (mine.length === 0 && their.length === 0) continue;
      const reason = kind === 'payment' ? paymentReason(mine, their) : refundReason(mine, their);
      lines.push(line(group, kind, sum(mine), sum(their), reason));
    }
    for (const kind of ['fee', 'dispute', 'withholding'] as const) {
      const their = group.theirs.filter((row) => row.kind === kind);
      if (their.length === 0) continue;
      const amount = sum(their);
      lines.push(line(group, kind, 0, amount, amount === 0 ? null : LEDGER_ONLY[kind]));
    }
  }
  const unmatched = lines.filter((l) => l.reason !== null);
  return {
    lines,
    oursTotal: sum(ours),
    theirsTotal: sum(theirs.filter((row) => row.kind !== 'payout')),
    unmatchedTotal: unmatched.reduce((total, l) => total + l.difference, 0),
    matchedCount: lines.length - unmatched.length,
    unmatchedCount: unmatched.length,
  };
}

/**
 * Reasons the gateway's ledger always gives (its fee, a release on another day than the capture's, a
 * later instalment's release, a tax it withholds): explained drift. Any other reason is drift someone
 * must look at.
 */
export const EXPECTED_REASONS: readonly ReconciliationReason[] = [
  'fee',
  'installment_timing',
  'release_timing',
  'withholding',
];

/** `balanced` when every line matched or differs for an expected reason; `drift` otherwise. */
export function reportStatus(result: ReconciliationResult): 'balanced' | 'drift' {
  return result.lines.every((l) => l.reason === null || EXPECTED_REASONS.includes(l.reason)) ? 'balanced' : 'drift';
}

/** The report's own check: what does not match is explained to the cent. */
export function sumsToZero(result: ReconciliationResult): boolean {
  return result.oursTotal - result.theirsTotal - result.unmatchedTotal === 0;
}

/** Lines whose reason a fetched notice can repair: the gateway has money our books lack. */
export function repairableLines(result: ReconciliationResult): ReconciliationLine[] {
  return result.lines.filter((l) => l.reason === 'missing_in_books' && l.gatewayId !== null);
}

/** What self-repair starts for a line (decision 0073): the path the line's missed notice would have taken. */
export const LINE_REPAIRS = ['gateway_refunds', 'payment_notice'] as const;
export type LineRepair = (typeof LINE_REPAIRS)[number];

/**
 * How a line repairs itself (decisions 0073, 0077): money the gateway moved that our books lack goes
 * the way its missed notice would have. A refund: the gateway-refunds workflow (decision 0068). A
 * payment: the payment-notice workflow (decision 0071), which finds its owner by our record of the
 * payment or by its reference and records it. Other lines are named on the report only.
 */
export function repairOf(line: ReconciliationLine): LineRepair | null {
  if (line.reason !== 'missing_in_books' || line.gatewayId === null) return null;
  if (line.kind === 'refund') return 'gateway_refunds';
  return line.kind === 'payment' ? 'payment_notice' : null;
}

/**
 * Our payments of the day the ledger has no row of (a release on a later day, or a payment the gateway
 * lacks): the gateway is asked which it releases later (`markReleasedLater`).
 */
export function unreleasedPayments(ours: BookRow[], theirs: LedgerRow[]): string[] {
  const released = new Set(theirs.filter((row) => row.kind === 'payment').map((row) => row.gatewayId));
  const ids = ours
    .filter((row) => row.kind === 'payment' && row.capturedOnAnotherDay === undefined && row.gatewayId !== null)
    .map((row) => row.gatewayId!)
    .filter((id) => !released.has(id));
  return [...new Set(ids)];
}

/** Our rows with the gateway's word on the payments it releases after the day (`releaseDates`: id → ISO date). */
export function markReleasedLater(
  ours: BookRow[],
  releaseDates: Record<string, string | null>,
  dayEnd: string,
): BookRow[] {
  const end = Date.parse(dayEnd);
  return ours.map((row) => {
    const at = row.kind === 'payment' && row.gatewayId ? releaseDates[row.gatewayId] : null;
    return at && Date.parse(at) >= end ? { ...row, releasedLater: true } : row;
  });
}
