import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  type BookRow,
  type LedgerRow,
  markReleasedLater,
  reconcile,
  repairableLines,
  repairOf,
  reportStatus,
  sumsToZero,
  unreleasedPayments,
} from '../../domain/reconciliation.ts';

/**
 * domain/reconciliation.ts: hand-computed days, then a property held to an oracle that only adds
 * the rows up (never the code's grouping): whatever the rows, the unmatched lines explain
 * Σ ours − Σ theirs (payouts aside) to the cent, and no matched line hides a cent.
 */

const pay = (gatewayId: string, amount: number, extra: Partial<BookRow> = {}): BookRow => ({
  kind: 'payment',
  gatewayId,
  reference: null,
  amount,
  ...extra,
});
const refund = (gatewayId: string, amount: number): BookRow => ({ kind: 'refund', gatewayId, reference: null, amount });
const led = (
  kind: LedgerRow['kind'],
  gatewayId: string | null,
  amount: number,
  extra: Partial<LedgerRow> = {},
): LedgerRow => ({
  kind,
  gatewayId,
  reference: null,
  amount,
  ...extra,
});

const reasons = (ours: BookRow[], theirs: LedgerRow[]) =>
  reconcile(ours, theirs)
    .lines.map((l) => [l.kind, l.gatewayId, l.difference, l.reason])
    .sort((a, b) => String(a).localeCompare(String(b)));

describe('reconcile, by hand', () => {
  it('matches a payment and its refund the ledger holds alike, and calls its fee a fee', () => {
    // R$ 100,00 sold, R$ 30,00 refunded; the gateway took a 4,99% fee: 499 cents.
    const result = reconcile(
      [pay('1', 10_000), refund('1', -3_000)],
      [led('payment', '1', 10_000), led('fee', '1', -499), led('refund', '1', -3_000), led('payout', null, -6_501)],
    );
    expect(result.oursTotal).toBe(7_000);
    expect(result.theirsTotal).toBe(6_501);
    expect(result.unmatchedTotal).toBe(499);
    expect(result.matchedCount).toBe(2);
    expect(result.lines.find((l) => l.kind === 'fee')).toMatchObject({
      ours: 0,
      theirs: -499,
      difference: 499,
      reason: 'fee',
    });
    expect(sumsToZero(result)).toBe(true);
  });

  it('names each fault of a day with its reason and amount', () => {
    const ours = [
      pay('10', 5_000), // matched
      pay('11', 3_000), // the gateway refunded 1_000 of it in its panel
      pay('12', 2_000), // the gateway never saw it
      pay('14', 7_000), // the gateway charged 7_100
      pay('15', 9_000), // 3 instalments, one released yet
      pay('16', 4_000),
      refund('16', -4_000), // the gateway refunded 2_500 only
      pay('17', 6_000, { status: 'approved' }),
    ];
    const theirs = [
      led('payment', '10', 5_000),
      led('payment', '11', 3_000),
      led('refund', '11', -1_000),
      led('payment', '13', 8_000), // our books lack it
      led('payment', '14', 7_100),
      led('payment', '15', 3_000, { installment: { number: 1, of: 3 } }),
      led('payment', '16', 4_000),
      led('refund', '16', -2_500),
      led('payment', '17', 6_000, { status: 'refunded' }),
      led('dispute', '10', -5_000),
      led('withholding', '14', -70),
    ];
    expect(reasons(ours, theirs)).toEqual(
      [
        ['payment', '10', 0, null],
        ['dispute', '10', 5_000, 'dispute'],
        ['payment', '11', 0, null],
        ['refund', '11', 1_000, 'missing_in_books'],
        ['payment', '12', 2_000, 'missing_at_gateway'],
        ['payment', '13', -8_000, 'missing_in_books'],
        ['payment', '14', -100, 'amount_mismatch'],
        ['withholding', '14', 70, 'withholding'],
        ['payment', '15', 6_000, 'installment_timing'],
        ['payment', '16', 0, null],
        ['refund', '16', -1_500, 'partial_refund'],
        ['payment', '17', 0, 'status_mismatch'],
      ].sort((a, b) => String(a).localeCompare(String(b))),
    );
    // Ours: payments 36_000, refunds −4_000 = 32_000. Theirs: payments 36_100, refunds −3_500,
    // dispute −5_000, withholding −70 = 27_530. The 4_470 between them, line by line:
    // 5_000 + 1_000 + 2_000 − 8_000 − 100 + 70 + 6_000 − 1_500 + 0.
    const result = reconcile(ours, theirs);
    expect(result.oursTotal).toBe(32_000);
    expect(result.theirsTotal).toBe(27_530);
    expect(result.unmatchedTotal).toBe(4_470);
    expect(sumsToZero(result)).toBe(true);
    expect(repairableLines(result).map((l) => [l.kind, l.gatewayId])).toEqual([
      ['refund', '11'],
      ['payment', '13'],
    ]);
    // Each goes the way its missed notice would have (decision 0077): nothing else repairs itself.
    expect(result.lines.map((l) => [l.kind, l.gatewayId, repairOf(l)]).filter(([, , r]) => r)).toEqual([
      ['refund', '11', 'gateway_refunds'],
      ['payment', '13', 'payment_notice'],
    ]);
  });

  it('joins a row known by its reference only with the payment that carries both', () => {
    const result = reconcile(
      [{ kind: 'payment', gatewayId: null, reference: 'chk_1:charge', amount: 1_000 }],
      [led('payment', '99', 1_000, { reference: 'chk_1:charge' }), led('fee', '99', -50)],
    );
    expect(result.lines.map((l) => [l.kind, l.gatewayId, l.reason])).toEqual([
      ['payment', '99', null],
      ['fee', '99', 'fee'],
    ]);
  });

  it('calls a payment with every instalment released but a different total an amount mismatch', () => {
    const released = [1, 2].map((number) => led('payment', '5', 1_000, { installment: { number, of: 2 } }));
    expect(reconcile([pay('5', 2_100)], released).lines[0]).toMatchObject({
      reason: 'amount_mismatch',
      difference: 100,
    });
    expect(reconcile([pay('5', 2_000)], released).lines[0]).toMatchObject({ reason: null });
  });

  it('calls a part released of a payment whose ledger names no instalment number timing (Mercado Pago)', () => {
    const unnumbered = (amount: number) => led('payment', '6', amount, { installment: { number: null, of: 3 } });
    expect(reconcile([pay('6', 30_000)], [unnumbered(10_000)]).lines[0]).toMatchObject({
      reason: 'installment_timing',
      difference: 20_000,
    });
    expect(reconcile([pay('6', 30_000)], [unnumbered(30_000)]).lines[0]).toMatchObject({ reason: null });
    // More released than our books hold, or nothing of a payment we hold: the amounts disagree.
    expect(reconcile([pay('6', 9_000)], [unnumbered(10_000)]).lines[0]).toMatchObject({ reason: 'amount_mismatch' });
    // With no row of ours, which instalment it is cannot be told: a payment our books lack.
    expect(reconcile([], [unnumbered(10_000)]).lines[0]).toMatchObject({ reason: 'missing_in_books' });
  });

  it('calls a later instalment of an earlier day’s payment timing, not a payment our books lack', () => {
    const later = reconcile([], [led('payment', '8', 1_000, { installment: { number: 2, of: 3 } })]);
    expect(later.lines[0]).toMatchObject({ reason: 'installment_timing', difference: -1_000 });
    expect(repairableLines(later)).toEqual([]);
  });
});

describe('reconcile: a capture and its release on different days (Mercado Pago’s report is by release)', () => {
  it('calls a capture of the day the gateway releases later timing, and one it does not release later missing', () => {
    const ours = [pay('9', 10_000), pay('10', 5_000)];
    // The ledger has neither; the gateway says 9 is released in 30 days and does not know 10.
    expect(unreleasedPayments(ours, [led('payment', '11', 700)])).toEqual(['9', '10']);
    const told = markReleasedLater(ours, { '9': '2026-12-28T12:00:00.000Z', '10': null }, '2026-11-29T00:00:00.000Z');
    const result = reconcile(told, []);
    expect(result.lines.map((l) => [l.gatewayId, l.difference, l.reason])).toEqual([
      ['9', 10_000, 'release_timing'],
      ['10', 5_000, 'missing_at_gateway'],
    ]);
    // A release date within the day is no later release: the ledger should have had it.
    const sameDay = markReleasedLater(ours, { '9': '2026-11-28T23:59:59.000Z' }, '2026-11-29T00:00:00.000Z');
    expect(reconcile(sameDay, []).lines[0]).toMatchObject({ reason: 'missing_at_gateway' });
    expect(reportStatus(reconcile([told[0]!], []))).toBe('balanced');
  });

  it('calls the release of a payment captured on another day timing, never a payment our books lack', () => {
    const carried = pay('12', 0, { capturedOnAnotherDay: 10_000 });
    const released = reconcile([carried], [led('payment', '12', 10_000), led('fee', '12', -499)]);
    expect(released.lines.map((l) => [l.kind, l.ours, l.theirs, l.reason])).toEqual([
      ['payment', 0, 10_000, 'release_timing'],
      ['fee', 0, -499, 'fee'],
    ]);
    expect(reportStatus(released)).toBe('balanced');
    expect(repairableLines(released)).toEqual([]);
    // Mercado Pago's instalment release: a share of it, of how many; timing all the same.
    const share = led('payment', '12', 3_334, { installment: { number: null, of: 3 } });
    expect(reconcile([carried], [share]).lines[0]).toMatchObject({ reason: 'installment_timing' });
    // More than our books captured, or money taken back as a release: the amounts disagree.
    expect(reconcile([carried], [led('payment', '12', 10_001)]).lines[0]).toMatchObject({ reason: 'amount_mismatch' });
    expect(reconcile([carried], [led('payment', '12', -100)]).lines[0]).toMatchObject({ reason: 'amount_mismatch' });
    // Only the day's own captures are asked about: a carried payment is already in the ledger.
    expect(unreleasedPayments([carried], [])).toEqual([]);
  });
});

describe('reconcile, the property', () => {
  const id = fc.constantFrom('1', '2', '3', '4', null);
  const reference = fc.constantFrom('a', 'b', 'c', null);
  const cents = fc.integer({ min: -1_000_000, max: 1_000_000 });
  const status = fc.constantFrom('approved', 'refunded', null);
  const bookRow = fc.record({
    kind: fc.constantFrom('payment' as const, 'refund' as const),
    gatewayId: id,
    reference,
    amount: cents,
    status,
  });
  const ledgerRow = fc.record({
    kind: fc.constantFrom(
      'payment' as const,
      'refund' as const,
      'fee' as const,
      'dispute' as const,
      'withholding' as const,
      'payout' as const,
    ),
    gatewayId: id,
    reference,
    amount: cents,
    status,
    installment: fc.option(
      fc
        .integer({ min: 1, max: 6 })
        .chain((of) => fc.record({ number: fc.integer({ min: 1, max: of }), of: fc.constant(of) })),
    ),
  });

  // A payment captured on another day, which the day's ledger releases: no cents of the day's own.
  const carriedRow = fc.record({
    kind: fc.constant('payment' as const),
    gatewayId: id,
    reference,
    amount: fc.constant(0),
    capturedOnAnotherDay: fc.integer({ min: 1, max: 1_000_000 }),
  });
  const markedRow = bookRow.chain((row) => fc.record({ releasedLater: fc.boolean() }).map((m) => ({ ...row, ...m })));

  it('explains Σ ours − Σ theirs to the cent, and every matched line is even', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(bookRow, markedRow, carriedRow), { maxLength: 12 }),
        fc.array(ledgerRow, { maxLength: 16 }),
        (ours, theirs) => {
          const result = reconcile(ours, theirs);
          // The oracle: plain sums of the inputs.
          let expected = 0;
          for (const row of ours) expected += row.amount;
          for (const row of theirs) if (row.kind !== 'payout') expected -= row.amount;
          const explained = result.lines.filter((l) => l.reason !== null).reduce((t, l) => t + l.ours - l.theirs, 0);
          expect(explained).toBe(expected);
          expect(result.unmatchedTotal).toBe(expected);
          expect(sumsToZero(result)).toBe(true);
          for (const l of result.lines) if (l.reason === null) expect(l.ours).toBe(l.theirs);
          // No row is dropped or counted twice.
          expect(result.lines.reduce((t, l) => t + l.ours, 0)).toBe(ours.reduce((t, r) => t + r.amount, 0));
          expect(result.lines.reduce((t, l) => t + l.theirs, 0)).toBe(
            theirs.filter((r) => r.kind !== 'payout').reduce((t, r) => t + r.amount, 0),
          );
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('reportStatus', () => {
  it('calls fees and instalment timing balanced, anything else drift', () => {
    const fees = reconcile([pay('1', 1_000)], [led('payment', '1', 1_000), led('fee', '1', -40)]);
    expect(reportStatus(fees)).toBe('balanced');
    const lacking = reconcile([pay('1', 1_000)], [led('payment', '1', 1_000), led('refund', '1', -500)]);
    expect(reportStatus(lacking)).toBe('drift');
  });
});
