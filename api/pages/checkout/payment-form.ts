import type { PublicCheckout } from '../../../use-cases/schemas/checkouts.ts';
import { html } from '../render.ts';
import { money, type Locale } from '../locale.ts';
import type { Messages } from './messages.ts';

/** What the buyer typed, given back after a refusal (never the card). */
export interface PaymentFormValues {
  email?: string;
  billing_line1?: string;
  billing_city?: string;
  billing_state?: string;
  billing_postal_code?: string;
  billing_country?: string;
  name?: string;
  tax_id?: string;
  discount_code?: string;
  payment_method?: string;
}

/** A refusal to show above the form, in an alert that a screen reader announces. */
export interface FormAlert {
  title: string;
  detail: string | null;
}

const METHODS = ['credit_card', 'pix', 'boleto'] as const;

/**
 * The payment form: the buyer, the method, and each method's fields. It works as a plain form post;
 * the page's script only hides the methods not chosen. The card fields sit in their own fieldset
 * (`data-card-fields`): a gateway's browser tokenization replaces them with a token field without
 * touching the rest of the form.
 */
export function PaymentForm({
  checkout,
  action,
  values,
  alert,
  t,
  locale,
}: {
  checkout: PublicCheckout;
  action: string;
  values: PaymentFormValues;
  alert: FormAlert | null;
  t: Messages;
  locale: Locale;
}) {
  return html`<form class="payment" method="post" action=${action} data-payment-form>
    <${AlertBox} alert=${alert} />
    <${BuyerFields} checkout=${checkout} values=${values} t=${t} />
    <${MethodChoice} checkout=${checkout} chosen=${values.payment_method} t=${t} locale=${locale} />
  </form>`;
}

/** The billing address a checkout with require_billing_address asks for, with the browser's address autofill. */
function AddressFields({ values, t }: { values: PaymentFormValues; t: Messages }) {
  const field = (
    name: keyof PaymentFormValues,
    label: string,
    autocomplete: string,
    extra: Record<string, string> = {},
  ) =>
    html`<div class="field">
      <label for=${name}>${label}</label>
      <input
        id=${name}
        name=${name}
        type="text"
        autocomplete=${autocomplete}
        required
        value=${values[name] ?? extra.value ?? ''}
        ...${extra}
      />
    </div>`;
  return html`<fieldset class="address">
    <legend>${t.address}</legend>
    ${field('billing_line1', t.line1, 'address-line1')}
    <div class="row">
      ${field('billing_city', t.city, 'address-level2')} ${field('billing_state', t.state, 'address-level1')}
    </div>
    <div class="row">
      ${field('billing_postal_code', t.postalCode, 'postal-code', { inputmode: 'numeric' })}
      ${field('billing_country', t.country, 'country', { value: 'BR', maxlength: '2' })}
    </div>
  </fieldset>`;
}

/** A refusal, announced by screen readers (role=alert). */
function AlertBox({ alert }: { alert: FormAlert | null }) {
  if (!alert) return null;
  return html`<div class="alert" role="alert" id="payment-alert">
    <strong>${alert.title}</strong>${alert.detail ? html`<span> ${alert.detail}</span>` : null}
  </div>`;
}

/**
 * A card instead of the pending pix or boleto: the buyer is known already, so only the card is asked;
 * the workflow cancels the pending charge before charging it.
 */
export function CardInsteadForm({
  checkout,
  action,
  alert,
  t,
  locale,
}: {
  checkout: PublicCheckout;
  action: string;
  alert: FormAlert | null;
  t: Messages;
  locale: Locale;
}) {
  return html`<details class="switch" open=${alert !== null}>
    <summary>${t.payByCardInstead}</summary>
    <form class="payment" method="post" action=${action}>
      <${AlertBox} alert=${alert} />
      <input type="hidden" name="payment_method" value="credit_card" />
      <${CardFields} checkout=${checkout} t=${t} locale=${locale} />
      <button type="submit">${t.pay(money(locale, checkout.amount))}</button>
    </form>
  </details>`;
}

/** Who pays: e-mail (the receipt), name, CPF/CNPJ (a boleto needs both), and a discount code when allowed. */
function BuyerFields({ checkout, values, t }: { checkout: PublicCheckout; values: PaymentFormValues; t: Messages }) {
  return html`<div class="field">
      <label for="email">${t.email}</label>
      <input
        id="email"
        name="email"
        type="email"
        autocomplete="email"
        inputmode="email"
        required
        value=${values.email ?? checkout.customer_email ?? ''}
      />
    </div>
    <div class="field">
      <label for="name">${t.name}</label>
      <input
        id="name"
        name="name"
        type="text"
        autocomplete="name"
        value=${values.name ?? checkout.customer_name ?? ''}
      />
    </div>
    <div class="field">
      <label for="tax_id">${t.taxId}</label>
      <input
        id="tax_id"
        name="tax_id"
        type="text"
        inputmode="numeric"
        autocomplete="off"
        maxlength="18"
        value=${values.tax_id ?? ''}
      />
    </div>
    ${checkout.require_billing_address ? html`<${AddressFields} values=${values} t=${t} />` : null}
    ${
      checkout.allow_discount_codes
        ? html`<div class="field">
            <label for="discount_code">${t.discountCode}</label>
            <input
              id="discount_code"
              name="discount_code"
              type="text"
              autocomplete="off"
              value=${values.discount_code ?? ''}
            />
          </div>`
        : null
    }`;
}

/** The methods, and each one's fields and button (the script shows the chosen one's). */
function MethodChoice({
  checkout,
  chosen,
  t,
  locale,
}: {
  checkout: PublicCheckout;
  chosen: string | undefined;
  t: Messages;
  locale: Locale;
}) {
  const selected = METHODS.find((m) => m === chosen) ?? 'credit_card';
  const label = { credit_card: t.card, pix: t.pix, boleto: t.boleto };
  return html`<fieldset class="methods">
      <legend>${t.method}</legend>
      ${METHODS.map(
        (m) =>
          html`<label class="method">
            <input type="radio" name="payment_method" value=${m} checked=${m === selected} data-method-choice />
            ${label[m]}
          </label>`,
      )}
    </fieldset>
    <fieldset class="method-panel" data-method="credit_card">
      <legend class="visually-hidden">${t.card}</legend>
      <${CardFields} checkout=${checkout} t=${t} locale=${locale} />
      <button type="submit">${t.pay(money(locale, checkout.amount))}</button>
    </fieldset>
    <fieldset class="method-panel" data-method="pix">
      <legend class="visually-hidden">${t.pix}</legend>
      <button type="submit">${t.payPix}</button>
    </fieldset>
    <fieldset class="method-panel" data-method="boleto">
      <legend class="visually-hidden">${t.boleto}</legend>
      <button type="submit">${t.payBoleto}</button>
    </fieldset>`;
}

/** Card number, name, expiry and code with the autofill tokens a browser and a phone keyboard expect. */
function CardFields({ checkout, t, locale }: { checkout: PublicCheckout; t: Messages; locale: Locale }) {
  const options = checkout.installment_options;
  return html`<div class="card-fields" data-card-fields>
    <div class="field">
      <label for="card_number">${t.cardNumber}</label>
      <input
        id="card_number"
        name="card_number"
        type="text"
        inputmode="numeric"
        autocomplete="cc-number"
        maxlength="23"
        spellcheck="false"
      />
    </div>
    <div class="field">
      <label for="card_name">${t.cardName}</label>
      <input id="card_name" name="card_name" type="text" autocomplete="cc-name" spellcheck="false" />
    </div>
    <div class="row">
      <div class="field">
        <label for="card_exp_month">${t.cardExpMonth}</label>
        <input
          id="card_exp_month"
          name="card_exp_month"
          type="text"
          inputmode="numeric"
          autocomplete="cc-exp-month"
          maxlength="2"
        />
      </div>
      <div class="field">
        <label for="card_exp_year">${t.cardExpYear}</label>
        <input
          id="card_exp_year"
          name="card_exp_year"
          type="text"
          inputmode="numeric"
          autocomplete="cc-exp-year"
          maxlength="4"
        />
      </div>
      <div class="field">
        <label for="card_csc">${t.cardCsc}</label>
        <input id="card_csc" name="card_csc" type="text" inputmode="numeric" autocomplete="cc-csc" maxlength="4" />
      </div>
    </div>
    <div class="field">
      <label for="installments">${t.installments}</label>
      <select id="installments" name="installments">
        ${options.map(
          (o) =>
            html`<option value=${o.installments}>
              ${t.installmentOption(
                o.installments,
                money(locale, o.installment_amount),
                money(locale, o.total),
                o.total === checkout.amount,
              )}
            </option>`,
        )}
      </select>
    </div>
  </div>`;
}
