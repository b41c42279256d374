import type { Orm } from '../db/orm.ts';
import type { GatewayTransaction, PaymentGateway } from '../gateway/port.ts';
import type { DirectTransactionInput } from '../domain/direct-transaction.ts';
import { upsertTransaction } from '../db/checkout/transactions.ts';
import { chargeCard, findChargeByKey } from './card-charges.ts';
import { callGateway } from './gateway-failures.ts';
import type { DirectTransactionActivities } from '../contracts/direct-transaction.ts';

export interface DirectTransactionDeps {
  orm: Orm;
  gateway: PaymentGateway;
}

/** The gateway idempotency key of a direct transaction: the organization and the request's Idempotency-Key. */
export const directTransactionKey = (organizationId: string, idempotencyKey: string) =>
  `direct:${organizationId}:${idempotencyKey}`;

/** A pix of a direct transaction is valid this long. */
const PIX_VALIDITY_SECONDS = 30 * 60;

export function createDirectTransactionActivities(deps: DirectTransactionDeps) {
  return {
    /**
     * Charges the card (by its token) or issues the pix. Keyed by the request, so a retry, a replay
     * or a second run returns the first charge. A decline is a transaction (status failed), not an
     * error; a definite refusal is GatewayRefusal; anything else a retryable GatewayError.
     */
    async chargeDirectTransaction(input: DirectTransactionInput): Promise<GatewayTransaction> {
      const key = directTransactionKey(input.organizationId, input.idempotencyKey);
      if (input.paymentType === 'pix') {
        return callGateway(() =>
          deps.gateway.createPixCharge(
            {
              reference: key,
              amount: input.amount,
              currency: 'BRL',
              buyer: input.customerEmail ? { email: input.customerEmail, taxId: input.customerTaxId } : null,
              expiresInSeconds: PIX_VALIDITY_SECONDS,
            },
            key,
          ),
        );
      }
      // Only its charge key: a pre-authorization is answered as such, as this API always has.
      return chargeCard(
        deps.gateway,
        {
          reference: key,
          amount: input.amount,
          currency: 'BRL',
          installments: input.installments,
          noFeesInstallments: false,
          card: { token: input.cardToken! },
          buyerId: input.gatewayBuyerId,
          capture: true,
          // A browser's token is charged as it is, naming its payer (decision 0074).
          ...(input.customerEmail ? { payer: { email: input.customerEmail, taxId: input.customerTaxId } } : {}),
        },
        { charge: key },
      );
    },

    /** What the gateway made under the request's key, if anything: how a lost answer is recovered. */
    async findDirectTransaction(organizationId: string, idempotencyKey: string): Promise<GatewayTransaction | null> {
      return findChargeByKey(deps.gateway, directTransactionKey(organizationId, idempotencyKey));
    },

    /**
     * Records our copy of the charge: a transaction of the seller's organization, with no checkout and
     * no sale. Keyed by the gateway's id: a repeat finds the record there and leaves it as it is (a
     * later gateway callback may have moved it on, e.g. a pix paid). Of a card, only what DESIGN.md
     * allows is kept. Returns our id.
     */
    async recordDirectTransaction(
      organizationId: string,
      payment: GatewayTransaction,
      customerEmail: string | null,
    ): Promise<string> {
      return upsertTransaction(
        deps.orm.em.fork(),
        { organizationId, checkoutId: null, buyer: customerEmail ? { email: customerEmail } : null },
        payment,
        'keep',
      );
    },
  } satisfies Partial<DirectTransactionActivities>;
}
