import { uuidv7 } from 'uuidv7';
import { storedCard } from '../db/entities/index.ts';
import type { Orm } from '../db/orm.ts';
import type { GatewayTransaction, PaymentGateway } from '../gateway/port.ts';
import type { DirectTransactionInput } from '../workflows/direct-transaction.ts';
import { callGateway } from './gateway-failures.ts';

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
      return callGateway(() =>
        deps.gateway.chargeCard(
          {
            reference: key,
            amount: input.amount,
            currency: 'BRL',
            installments: input.installments,
            noFeesInstallments: false,
            card: { token: input.cardToken! },
            buyerId: input.gatewayBuyerId,
            capture: true,
          },
          key,
        ),
      );
    },

    /** What the gateway made under the request's key, if anything: how a lost answer is recovered. */
    async findDirectTransaction(organizationId: string, idempotencyKey: string): Promise<GatewayTransaction | null> {
      return callGateway(() =>
        deps.gateway.findTransactionByIdempotencyKey(directTransactionKey(organizationId, idempotencyKey)),
      );
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
      const now = new Date();
      const rows = await deps.orm.em.fork().execute<{ id: string }[]>(
        `insert into transactions (id, organization_id, gateway_transaction_id, status, payment_type, amount, currency,
           installments, card, authorization_code, decline_reason, buyer, captured_amount, confirmed_at, created_at, updated_at)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         on conflict (gateway_transaction_id) do update set gateway_transaction_id = excluded.gateway_transaction_id
         returning id`,
        [
          uuidv7(),
          organizationId,
          payment.id,
          payment.status,
          payment.paymentType,
          payment.amount,
          payment.currency.toUpperCase(),
          payment.installments,
          payment.card ? JSON.stringify(storedCard(payment.card)) : null,
          payment.authorizationCode,
          payment.declineReason,
          customerEmail ? JSON.stringify({ email: customerEmail }) : null,
          payment.capturedAmount,
          payment.confirmedAt,
          now,
          now,
        ],
      );
      return rows[0]!.id;
    },
  };
}
