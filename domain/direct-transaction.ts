/** What a direct transaction (POST /transactions/direct without a checkout) carries into its workflow. */
export interface DirectTransactionInput {
  organizationId: string;
  /** The request's Idempotency-Key (or a fresh id): the gateway key is derived from it. */
  idempotencyKey: string;
  paymentType: 'credit' | 'pix';
  amount: number;
  installments: number;
  /** The gateway token of the buyer's card (credit). The card itself never reaches workflow history. */
  cardToken: string | null;
  gatewayBuyerId: string | null;
  customerEmail: string | null;
  customerTaxId: string | null;
}
