/**
 * The payment gateway as this engine sees it. Every call that creates something at the gateway
 * takes an idempotency key derived from a business identity (never an attempt number), and a
 * repeated key returns the first result: that is what lets activities retry without charging twice.
 */
export interface RecurrencePlanInput {
  /** Our price id: plans are kept one per price. */
  reference: string;
  name: string;
  amount: number;
  currency: string;
  interval: 'day' | 'week' | 'month' | 'year';
  intervalCount: number;
}

export interface RecurrencePlan {
  id: string;
  reference: string;
  amount: number;
  currency: string;
  interval: string;
  intervalCount: number;
  createdAt: string;
}

export class GatewayError extends Error {
  /** True when the same call may succeed later (timeouts, 5xx); false for a definite refusal. */
  readonly retryable: boolean;
  constructor(message: string, retryable: boolean) {
    super(message);
    this.name = 'GatewayError';
    this.retryable = retryable;
  }
}

export interface PaymentGateway {
  createRecurrencePlan(input: RecurrencePlanInput, idempotencyKey: string): Promise<RecurrencePlan>;
}
