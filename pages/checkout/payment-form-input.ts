import { z } from 'zod';
import { confirmSdkBody, type ConfirmSdkBody } from '../../api/schemas/checkout-confirm.ts';
import type { Messages } from './messages.ts';
import type { PaymentFormValues } from './payment-form.ts';

/** The hosted checkout's form post, as the browser sends it (every field a string, any of them blank). */
export const paymentFormBody = z
  .object({
    email: z.string().max(320),
    name: z.string().max(200),
    tax_id: z.string().max(32),
    discount_code: z.string().max(100),
    payment_method: z.string().max(20),
    card_number: z.string().max(40),
    card_name: z.string().max(200),
    card_exp_month: z.string().max(4),
    card_exp_year: z.string().max(4),
    card_csc: z.string().max(4),
    /** The gateway's browser token of the card (the page's script sets it; the card fields then go unsent). */
    card_token: z.string().max(255),
    /** The card's payment method and issuer, as the gateway's script looked them up from its BIN. */
    payment_method_id: z.string().max(40),
    issuer_id: z.string().max(40),
    installments: z.string().max(2),
    billing_line1: z.string().max(256),
    billing_city: z.string().max(256),
    billing_state: z.string().max(256),
    billing_postal_code: z.string().max(32),
    billing_country: z.string().max(2),
  })
  .partial();
export type PaymentFormBody = z.infer<typeof paymentFormBody>;

const filled = (value: string | undefined) => (value?.trim() ? value.trim() : undefined);

/** What the form gives back to the buyer after a refusal: everything but the card. */
export function formValues(form: PaymentFormBody): PaymentFormValues {
  const { email, name, tax_id, discount_code, payment_method, installments } = form;
  const { billing_line1, billing_city, billing_state, billing_postal_code, billing_country } = form;
  return {
    ...{ email, name, tax_id, discount_code, payment_method, installments },
    ...{ billing_line1, billing_city, billing_state, billing_postal_code, billing_country },
  };
}

/** The billing address when the buyer typed one (the checkout asks for it only when it requires one). */
function addressOf(form: PaymentFormBody) {
  if (!filled(form.billing_line1) && !filled(form.billing_city)) return undefined;
  return {
    line1: filled(form.billing_line1) ?? '',
    city: filled(form.billing_city) ?? '',
    state: filled(form.billing_state),
    postal_code: filled(form.billing_postal_code),
    country: filled(form.billing_country) ?? '',
  };
}

/** The labels of the form's fields, to say which one is wrong. */
function fieldLabel(t: Messages, path: PropertyKey[]): string {
  const [first, second] = path;
  if (first === 'customer_billing_address') {
    const address: Record<string, string> = {
      line1: t.line1,
      city: t.city,
      state: t.state,
      postal_code: t.postalCode,
      country: t.country,
    };
    return address[String(second)] ?? t.address;
  }
  if (first === 'card_token') return second === 'installments' ? t.installments : t.card;
  if (first === 'card') {
    const card: Record<string, string> = {
      number: t.cardNumber,
      holder_name: t.cardName,
      expiration_month: t.cardExpMonth,
      expiration_year: t.cardExpYear,
      cvv: t.cardCsc,
      installments: t.installments,
    };
    return card[String(second)] ?? t.card;
  }
  const buyer: Record<string, string> = {
    customer_email: t.email,
    customer_name: t.name,
    customer_tax_id: t.taxId,
    discount_code: t.discountCode,
    payment_method: t.method,
  };
  return buyer[String(first)] ?? String(first);
}

/**
 * A card chosen, but neither the browser's token nor card data sent, where card data is refused: the
 * buyer's browser did not run the tokenizer (no JavaScript), which the page says plainly.
 */
export function lacksCardToken(form: PaymentFormBody, acceptsCardData: boolean): boolean {
  // The kept card is paid only with the token the gateway's script mints with its security code.
  if (form.payment_method === 'kept_card') return !filled(form.card_token);
  return (
    form.payment_method === 'credit_card' && !acceptsCardData && !filled(form.card_token) && !filled(form.card_number)
  );
}

/**
 * The form as the confirm-sdk body the API takes (the same rules then apply), or the labels of the
 * fields it gets wrong. Card fields count only when the card is the chosen method, and only when the
 * browser sent no token (the no-JavaScript post of a deployment that takes card data).
 */
export function confirmationOf(
  form: PaymentFormBody,
  t: Messages,
): { body: ConfirmSdkBody; invalid: null } | { body: null; invalid: string[] } {
  // The kept card (decision 0078) is a card payment whose token the browser minted from the kept card.
  const keptCard = form.payment_method === 'kept_card';
  // Pix Automático chosen by the buyer (decision 0096's opt-in) is a pix whose QR code is the mandate's.
  const pixAutomatico = form.payment_method === 'pix_automatico';
  const byCard = form.payment_method === 'credit_card' || keptCard;
  const token = byCard ? filled(form.card_token) : undefined;
  const installments = Number(form.installments ?? '1') || 1;
  const parsed = confirmSdkBody.safeParse({
    payment_method: keptCard ? 'credit_card' : pixAutomatico ? 'pix' : form.payment_method,
    pix_automatico: pixAutomatico || undefined,
    customer_email: filled(form.email),
    customer_name: filled(form.name),
    customer_tax_id: filled(form.tax_id),
    discount_code: filled(form.discount_code),
    customer_billing_address: addressOf(form),
    card:
      form.payment_method === 'credit_card' && !token
        ? {
            number: (form.card_number ?? '').replace(/[\s-]/g, ''),
            holder_name: filled(form.card_name) ?? '',
            expiration_month: filled(form.card_exp_month) ?? '',
            expiration_year: filled(form.card_exp_year) ?? '',
            cvv: filled(form.card_csc) ?? '',
            installments,
          }
        : undefined,
    card_token: token
      ? keptCard
        ? { token, installments, kept_card: true }
        : {
            token,
            installments,
            payment_method_id: filled(form.payment_method_id),
            issuer_id: filled(form.issuer_id),
          }
      : undefined,
  });
  if (parsed.success) return { body: parsed.data, invalid: null };
  return { body: null, invalid: [...new Set(parsed.error.issues.map((i) => fieldLabel(t, i.path)))] };
}
