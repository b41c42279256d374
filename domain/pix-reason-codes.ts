/**
 * Pix Automático's codes in words (decision 0096), for the API's and the dashboard's readers: why a
 * charge's attempt failed, why a mandate was rejected or cancelled. The codes are the BCB's (its
 * message catalogue); a code not listed here is described by the gateway's own words.
 */

/** An attempt that ran out of its day without funds has no code of the BCB's: this is ours. */
export const INSUFFICIENT_FUNDS = 'insufficient_funds';

export const PIX_REASON_DESCRIPTIONS: Readonly<Record<string, string>> = {
  [INSUFFICIENT_FUNDS]: 'The payer’s account had no funds on the settlement day',
  AB10: 'The payer’s bank failed to process the payment',
  AC05: 'The payer’s account is closed',
  AC06: 'The payer’s account is blocked',
  AM02: 'The amount is above the maximum the payer allows',
  AM09: 'The amount differs from the mandate’s',
  DENC: 'The payer’s tax id differs from the mandate’s',
  DS27: 'A participant is not registered for Pix Automático',
  DTED: 'The settlement date is not valid',
  MIDI: 'The payment’s identifier is not valid',
  MSUC: 'The charge was already paid',
  NITX: 'The charge’s transaction id is not valid',
  RC09: 'The receiver’s account is not valid',
  AP13: 'The payer refused the authorization',
  AP14: 'The authorization was refused by the payer’s bank',
  ACCL: 'The payer’s account was closed',
  CPCL: 'The receiver closed the agreement',
  DCSD: 'The payer died',
  ERSL: 'The receiver’s settlement failed',
  FRUD: 'Suspected fraud',
  PCFD: 'The payer’s bank cancelled it',
  SLCR: 'The receiver asked to cancel it',
  SLDB: 'The payer asked to cancel it',
};

/** A code in words: ours when we know it, else the gateway's description, else the code itself. */
export function describePixReason(code: string, gatewayDescription?: string | null): string {
  return PIX_REASON_DESCRIPTIONS[code] ?? (gatewayDescription || code);
}
