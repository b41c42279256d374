/** What is still refundable: what was paid, less what is refunded or on its way to being refunded. */
export function refundableAmount(paid: number, refunded: number, pending: number): number {
  return Math.max(0, paid - refunded - pending);
}

/** A sale's status follows from how much of it has come back to the buyer. */
export function saleStatusAfterRefunds(paid: number, refunded: number): 'paid' | 'partially_refunded' | 'refunded' {
  if (refunded <= 0) return 'paid';
  return refunded >= paid ? 'refunded' : 'partially_refunded';
}

/** The gateway's transaction status for the same situation. */
export function transactionStatusAfterRefunds(
  captured: number,
  refunded: number,
): 'succeeded' | 'partial_refunded' | 'refunded' {
  if (refunded <= 0) return 'succeeded';
  return refunded >= captured ? 'refunded' : 'partial_refunded';
}
