import type { PublicCheckout } from '../../use-cases/schemas/checkouts.ts';
import { html } from '../render.ts';
import { money, type Locale } from '../locale.ts';
import { CardFields, KeptCardFields, type CardSetup } from './card-fields.ts';
import type { Messages } from './messages.ts';
import { chosenPlan, type BuyerPlan } from './amounts.ts';
import {
  isPixAutomaticoCheckout,
  MandateTerms,
  offersPixAutomaticoChoice,
  pixAutomaticoLabel,
  PixAutomaticoPanel,
  plannedTerms,
  type MandateTermsView,
} from './pix-automatico.ts';

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
  /** The instalments chosen, kept when the page is priced again (a discount code, or "update amounts"). */
  installments?: string;
}

/** A refusal to show above the form, in an alert that a screen reader announces. */
export interface FormAlert {
  title: string;
  detail: string | null;
}

const METHODS = ['credit_card', 'pix', 'boleto'] as const;

/**
 * The payment form: the buyer, the method, and each method's fields. Pix and boleto work as a plain
 * form post; the page's script hides the methods not chosen, and tokenizes the card with the gateway's
 * browser script before the post (card-fields.ts).
 */
export function PaymentForm({
  checkout,
  action,
  values,
  alert,
  card,
  plan,
  previewPath,
  discountNote,
  now,
  t,
  locale,
}: {
  checkout: PublicCheckout;
  action: string;
  values: PaymentFormValues;
  alert: FormAlert | null;
  card: CardSetup;
  /** The instalments chosen: the card's button says their total. */
  plan: BuyerPlan;
  previewPath: string | null;
  discountNote: string | null;
  /** The page's clock: a Pix Automático checkout states its next charge's estimated day. */
  now: Date;
  t: Messages;
  locale: Locale;
}) {
  const mandate = isPixAutomaticoCheckout(checkout) ? plannedTerms(checkout, now) : null;
  if (mandate) {
    return html`<form class="payment" method="post" action=${action} data-payment-form data-preview=${previewPath}>
      <${AlertBox} alert=${alert} />
      <${BuyerFields}
        checkout=${checkout}
        values=${values}
        previewPath=${previewPath}
        discountNote=${discountNote}
        payerRequired=${true}
        t=${t}
      />
      <fieldset class="methods">
        <legend>${t.method}</legend>
        <label class="method">
          <input type="radio" name="payment_method" value="pix" checked data-method-choice />
          ${pixAutomaticoLabel(t, mandate.periodicity)}
        </label>
      </fieldset>
      <${MandateTerms} terms=${mandate} firstNow=${true} t=${t} locale=${locale} />
      <button type="submit">${t.payPixAutomatico}</button>
    </form>`;
  }
  return html`<form class="payment" method="post" action=${action} data-payment-form data-preview=${previewPath}>
    <${AlertBox} alert=${alert} />
    <${BuyerFields}
      checkout=${checkout}
      values=${values}
      previewPath=${previewPath}
      discountNote=${discountNote}
      t=${t}
    />
    <${MethodChoice}
      checkout=${checkout}
      chosen=${values.payment_method}
      card=${card}
      plan=${plan}
      previewPath=${previewPath}
      mandate=${offersPixAutomaticoChoice(checkout) ? plannedTerms(checkout, now) : null}
      t=${t}
      locale=${locale}
    />
  </form>`;
}

/** The card's pay button: the total of the instalments chosen (the page's script keeps it so). */
export function CardPayButton({ plan, t, locale }: { plan: BuyerPlan; t: Messages; locale: Locale }) {
  return html`<button type="submit" data-pay-button>${t.pay(money(locale, plan.total))}</button>`;
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
  card,
  t,
  locale,
}: {
  checkout: PublicCheckout;
  action: string;
  alert: FormAlert | null;
  card: CardSetup;
  t: Messages;
  locale: Locale;
}) {
  if (!card.tokenizer) return null;
  return html`<details class="switch" open=${alert !== null}>
    <summary>${t.payByCardInstead}</summary>
    <form class="payment" method="post" action=${action} data-payment-form>
      <${AlertBox} alert=${alert} />
      <input type="hidden" name="payment_method" value="credit_card" />
      <${CardFields} checkout=${checkout} setup=${card} t=${t} locale=${locale} />
      <${CardPayButton} plan=${chosenPlan(checkout)} t=${t} locale=${locale} />
    </form>
  </details>`;
}

/** Who pays: e-mail (the receipt), name, CPF/CNPJ (a boleto needs both), and a discount code when allowed. */
function BuyerFields({
  checkout,
  values,
  previewPath,
  discountNote,
  payerRequired = false,
  t,
}: {
  checkout: PublicCheckout;
  values: PaymentFormValues;
  previewPath: string | null;
  discountNote: string | null;
  /** Pix Automático's mandate names its payer: name and CPF/CNPJ are then required. */
  payerRequired?: boolean;
  t: Messages;
}) {
  // Where the buyer may choose Pix Automático, its payer's fields are required once it is chosen (the script).
  const requiredFor = !payerRequired && offersPixAutomaticoChoice(checkout) ? 'pix_automatico' : undefined;
  return html`${payerRequired ? html`<p class="muted" id="payer-note">${t.pixAutomaticoNeedsPayer}</p>` : null}
    <div class="field">
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
        required=${payerRequired}
        data-required-for=${requiredFor}
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
        data-tax-id
        required=${payerRequired}
        data-required-for=${requiredFor}
        value=${values.tax_id ?? ''}
      />
    </div>
    ${checkout.require_billing_address ? html`<${AddressFields} values=${values} t=${t} />` : null}
    ${
      checkout.allow_discount_codes
        ? html`<${DiscountField}
            value=${values.discount_code ?? ''}
            previewPath=${previewPath}
            note=${discountNote}
            t=${t}
          />`
        : null
    }`;
}

/**
 * The discount code, and its "apply" button: the page priced again with the code (routes.ts' preview;
 * the script fetches it and updates the amounts in place), before anything is paid. The code stays in
 * the form, and the payment applies it.
 */
function DiscountField({
  value,
  previewPath,
  note,
  t,
}: {
  value: string;
  previewPath: string | null;
  note: string | null;
  t: Messages;
}) {
  return html`<div class="field">
    <label for="discount_code">${t.discountCode}</label>
    <div class="row apply">
      <input id="discount_code" name="discount_code" type="text" autocomplete="off" value=${value} />
      ${
        previewPath
          ? html`<button type="submit" class="secondary" formaction=${previewPath} formnovalidate data-apply-discount>
              ${t.applyDiscount}
            </button>`
          : null
      }
    </div>
    <p class="muted" role="status" data-discount-status data-testid="discount-status">${note ?? ''}</p>
  </div>`;
}

/**
 * The methods, and each one's fields and button (the script shows the chosen one's). Without a
 * tokenizer the card is not offered, and the page says so. Where the buyer may choose Pix Automático
 * (`mandate`: its terms), it follows pix, with its terms stated before payment.
 */
function MethodChoice({
  checkout,
  chosen,
  card,
  plan,
  previewPath,
  mandate,
  t,
  locale,
}: {
  checkout: PublicCheckout;
  chosen: string | undefined;
  card: CardSetup;
  plan: BuyerPlan;
  previewPath: string | null;
  mandate: MandateTermsView | null;
  t: Messages;
  locale: Locale;
}) {
  const cardFields = { checkout, setup: card, plan, previewPath, t, locale };
  const offered = card.tokenizer ? METHODS : METHODS.filter((m) => m !== 'credit_card');
  const withMandate = mandate
    ? offered.flatMap((m) => (m === 'pix' ? (['pix', 'pix_automatico'] as const) : [m]))
    : offered;
  // The card the subscription keeps first, where it is offered (decision 0078).
  const kept = card.tokenizer ? card.keptCard : null;
  const methods = kept ? (['kept_card', ...withMandate] as const) : withMandate;
  const selected = methods.find((m) => m === chosen) ?? methods[0];
  const label = {
    kept_card: kept ? t.keptCard(kept.brand, kept.last4) : '',
    credit_card: t.card,
    pix: t.pix,
    pix_automatico: mandate ? pixAutomaticoLabel(t, mandate.periodicity) : '',
    boleto: t.boleto,
  };
  return html`${card.tokenizer ? null : html`<p class="muted" data-testid="card-unavailable">${t.cardUnavailable}</p>`}
    <fieldset class="methods">
      <legend>${t.method}</legend>
      ${methods.map(
        (m) =>
          html`<label class="method">
            <input type="radio" name="payment_method" value=${m} checked=${m === selected} data-method-choice />
            ${label[m]}
          </label>`,
      )}
    </fieldset>
    ${
      kept
        ? html`<fieldset class="method-panel" data-method="kept_card">
            <legend class="visually-hidden">${label.kept_card}</legend>
            <${KeptCardFields} ...${cardFields} />
            <${CardPayButton} plan=${plan} t=${t} locale=${locale} />
          </fieldset>`
        : null
    }
    ${
      card.tokenizer
        ? html`<fieldset class="method-panel" data-method="credit_card">
            <legend class="visually-hidden">${t.card}</legend>
            <${CardFields} ...${cardFields} />
            <${CardPayButton} plan=${plan} t=${t} locale=${locale} />
          </fieldset>`
        : null
    }
    <fieldset class="method-panel" data-method="pix">
      <legend class="visually-hidden">${t.pix}</legend>
      <button type="submit">${t.payPix}</button>
    </fieldset>
    ${mandate ? html`<${PixAutomaticoPanel} terms=${mandate} t=${t} locale=${locale} />` : null}
    <fieldset class="method-panel" data-method="boleto">
      <legend class="visually-hidden">${t.boleto}</legend>
      <button type="submit">${t.payBoleto}</button>
    </fieldset>`;
}
