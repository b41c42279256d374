import type { PublicCheckout } from '../../use-cases/schemas/checkouts.ts';
import { html } from '../render.ts';
import { money, type Locale } from '../locale.ts';
import type { Messages } from './messages.ts';

/**
 * How the page takes a card. The gateway's script (MercadoPago.js, or the sandbox's look-alike)
 * tokenizes it in the browser and the form posts only `card_token`; the card inputs carry a `name`
 * only where card data may reach this server (the sandbox, or a deployment that accepts full PCI
 * scope), so that a post without JavaScript still pays there. Elsewhere they have none: a browser
 * without the script posts no card at all (Mercado Pago's production requirements ask for that too).
 */
export interface CardSetup {
  /** The gateway's browser tokenizer (its script: an asset's name or a URL); null: no card from a page here. */
  tokenizer: { script: string; publicKey: string } | null;
  namedFields: boolean;
}

/** The card's inputs: label, post name (the no-JavaScript fallback), the script's handle and autofill. */
const INPUTS = [
  { id: 'card_number', card: 'number', label: 'cardNumber', autocomplete: 'cc-number', maxlength: '23' },
  { id: 'card_name', card: 'name', label: 'cardName', autocomplete: 'cc-name', maxlength: '200' },
  { id: 'card_exp_month', card: 'exp_month', label: 'cardExpMonth', autocomplete: 'cc-exp-month', maxlength: '2' },
  { id: 'card_exp_year', card: 'exp_year', label: 'cardExpYear', autocomplete: 'cc-exp-year', maxlength: '4' },
  { id: 'card_csc', card: 'csc', label: 'cardCsc', autocomplete: 'cc-csc', maxlength: '4' },
] as const;

type CardInput = (typeof INPUTS)[number];

function Input({ input, t, named }: { input: CardInput; t: Messages; named: boolean }) {
  const numeric = input.card !== 'name';
  return html`<div class="field">
    <label for=${input.id}>${t[input.label]}</label>
    <input
      id=${input.id}
      name=${named ? input.id : undefined}
      data-card=${input.card}
      type="text"
      inputmode=${numeric ? 'numeric' : undefined}
      autocomplete=${input.autocomplete}
      maxlength=${input.maxlength}
      spellcheck="false"
    />
  </div>`;
}

/**
 * Card number, name, expiry and code with the autofill tokens a browser and a phone keyboard expect,
 * the installments, the token the script fills in, and where the script says why it could not.
 */
export function CardFields({
  checkout,
  setup,
  t,
  locale,
}: {
  checkout: PublicCheckout;
  setup: CardSetup;
  t: Messages;
  locale: Locale;
}) {
  const named = setup.namedFields;
  const [number, name, month, year, csc] = INPUTS.map(
    (input) => html`<${Input} input=${input} t=${t} named=${named} />`,
  );
  return html`<div
    class="card-fields"
    data-card-fields
    data-public-key=${setup.tokenizer?.publicKey}
    data-failed-text=${t.cardTokenFailed}
    data-unloaded-text=${t.cardScriptUnloaded}
    data-missing-text=${t.cardMissing}
  >
    <p class="alert" role="alert" data-card-error hidden></p>
    ${named ? null : html`<noscript><p class="alert">${t.cardNeedsScript}</p></noscript>`}
    <input type="hidden" name="card_token" value="" data-card-token />
    ${number} ${name}
    <div class="row">${month} ${year} ${csc}</div>
    <${Installments} checkout=${checkout} t=${t} locale=${locale} />
  </div>`;
}

function Installments({ checkout, t, locale }: { checkout: PublicCheckout; t: Messages; locale: Locale }) {
  return html`<div class="field">
    <label for="installments">${t.installments}</label>
    <select id="installments" name="installments">
      ${checkout.installment_options.map(
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
  </div>`;
}
