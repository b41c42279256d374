import type { KeptCardOffer } from '../../api/kept-card-offers.ts';
import type { PublicCheckout } from '../../use-cases/schemas/checkouts.ts';
import { html } from '../render.ts';
import { money, type Locale } from '../locale.ts';
import type { Messages } from './messages.ts';
import { planText, type BuyerPlan } from './amounts.ts';

/**
 * How the page takes a card. The card's number, expiry and security code are the gateway's Secure
 * Fields (MercadoPago.js, or the sandbox's look-alike): inputs inside the gateway's frames, mounted
 * into the containers below by the page's script, which never reads them; the gateway tokenizes the
 * card and the form posts only `card_token`, with the card's `payment_method_id` and `issuer_id` from
 * its BIN. Where card data may reach this server (the sandbox, or a deployment that accepts full PCI
 * scope) a browser without JavaScript gets plain named inputs instead (in `<noscript>`, so a page
 * that runs its script has none), and a post without JavaScript still pays there.
 */
export interface CardSetup {
  /** The gateway's browser tokenizer (its script: an asset's name or a URL); null: no card from a page here. */
  tokenizer: { script: string; publicKey: string } | null;
  namedFields: boolean;
  /**
   * The card the checkout's subscription keeps, where the gateway charges it with the buyer present
   * only with its security code typed again (decision 0078): the id its browser script mints the token
   * from, its brand and last digits. Absent: no kept card is offered.
   */
  keptCard?: KeptCardOffer | null;
}

/** What the card's fields read of the checkout: its amount and instalment plans (the portal passes its own). */
export type CardCheckout = Pick<PublicCheckout, 'amount' | 'installment_options'>;

/** The scripts that drive card fields, in their order (checkout.js uses what checkout-amounts.js defines). */
export const CARD_SCRIPTS = ['checkout-amounts.js', 'checkout.js'];

/** The no-JavaScript fallback's card inputs: label, post name and autofill. */
const PLAIN_INPUTS = [
  { id: 'card_number', label: 'cardNumber', autocomplete: 'cc-number', maxlength: '23' },
  { id: 'card_exp_month', label: 'cardExpMonth', autocomplete: 'cc-exp-month', maxlength: '2' },
  { id: 'card_exp_year', label: 'cardExpYear', autocomplete: 'cc-exp-year', maxlength: '4' },
  { id: 'card_csc', label: 'cardCsc', autocomplete: 'cc-csc', maxlength: '4' },
] as const;

function PlainInput({ input, t }: { input: (typeof PLAIN_INPUTS)[number]; t: Messages }) {
  return html`<div class="field">
    <label for=${input.id}>${t[input.label]}</label>
    <input
      id=${input.id}
      name=${input.id}
      type="text"
      inputmode="numeric"
      autocomplete=${input.autocomplete}
      maxlength=${input.maxlength}
      spellcheck="false"
    />
  </div>`;
}

/**
 * A Secure Field's place: its label, and the container the gateway's frame is mounted into. Hidden
 * until the script mounts the field (a page without JavaScript shows no empty box).
 */
function SecureField({ id, label }: { id: string; label: string }) {
  return html`<div class="field" data-secure-slot hidden>
    <span class="label" id=${`${id}_label`} data-label-of=${id}>${label}</span>
    <div class="secure-field" id=${id} role="group" aria-labelledby=${`${id}_label`}></div>
  </div>`;
}

/**
 * The card's Secure Fields (or, without JavaScript where card data is accepted, plain inputs), the
 * holder's name, the installments, the token, payment method and issuer the script fills in, and where
 * the script says why it could not.
 */
export function CardFields({
  checkout,
  setup,
  plan,
  previewPath = null,
  t,
  locale,
}: {
  checkout: CardCheckout;
  setup: CardSetup;
  plan?: BuyerPlan;
  previewPath?: string | null;
  t: Messages;
  locale: Locale;
}) {
  const named = setup.namedFields;
  return html`<div
    class="card-fields"
    data-card-fields
    data-public-key=${setup.tokenizer?.publicKey}
    data-amount=${String(checkout.amount)}
    data-max-installments=${String(Math.max(1, ...checkout.installment_options.map((o) => o.installments)))}
    data-option-one=${t.installmentOption(1, '{each}', '{total}', true)}
    data-option-free=${t.installmentOption('{n}', '{each}', '{total}', true)}
    data-option-interest=${t.installmentOption('{n}', '{each}', '{total}', false)}
    data-failed-text=${t.cardTokenFailed}
    data-unloaded-text=${t.cardScriptUnloaded}
    data-missing-text=${t.cardMissing}
    data-plan-one=${t.planLine(1, '{each}', null)}
    data-plan-free=${t.planLine('{n}', '{each}', null)}
    data-plan-interest=${t.planLine('{n}', '{each}', '{interest}')}
    data-pay-template=${t.pay('{amount}')}
    data-brand-text=${t.cardBrand('{brand}')}
    data-brands=${JSON.stringify(t.brands)}
  >
    <p class="alert" role="alert" data-card-error hidden></p>
    ${
      named
        ? html`<noscript> ${PLAIN_INPUTS.map((input) => html`<${PlainInput} input=${input} t=${t} />`)} </noscript>`
        : html`<noscript><p class="alert">${t.cardNeedsScript}</p></noscript>`
    }
    <input type="hidden" name="card_token" value="" data-card-token />
    <input type="hidden" name="payment_method_id" value="" data-card-method />
    <input type="hidden" name="issuer_id" value="" data-card-issuer />
    <${SecureField} id="card_number_field" label=${t.cardNumber} />
    <p class="muted brand" data-card-brand data-testid="card-brand" aria-live="polite" hidden></p>
    <div class="field">
      <label for="card_name" data-label-of="card_name">${t.cardName}</label>
      <input
        id="card_name"
        name=${named ? 'card_name' : undefined}
        data-card="name"
        type="text"
        autocomplete="cc-name"
        maxlength="200"
        spellcheck="false"
      />
    </div>
    <div class="row">
      <${SecureField} id="card_expiration_field" label=${t.cardExpiry} />
      <${SecureField} id="card_csc_field" label=${t.cardCsc} />
    </div>
    <${Installments}
      checkout=${checkout}
      plan=${plan}
      previewPath=${named ? previewPath : null}
      t=${t}
      locale=${locale}
    />
  </div>`;
}

/**
 * The kept card: only its security code, a Secure Field of its own, which the gateway's script reads
 * when it mints the card's token (`createCardToken({ cardId })`); the form posts that token as
 * `card_token` (decision 0078). Without JavaScript it cannot be paid, which the page says.
 */
export function KeptCardFields({
  checkout,
  setup,
  plan,
  t,
  locale,
}: {
  checkout: PublicCheckout;
  setup: CardSetup;
  plan?: BuyerPlan;
  t: Messages;
  locale: Locale;
}) {
  const kept = setup.keptCard;
  if (!kept || !setup.tokenizer) return null;
  return html`<div
    class="card-fields"
    data-kept-card-fields
    data-card-id=${kept.cardId}
    data-public-key=${setup.tokenizer.publicKey}
    data-failed-text=${t.cardTokenFailed}
    data-unloaded-text=${t.cardScriptUnloaded}
    data-missing-text=${t.keptCardCscMissing}
  >
    <p class="alert" role="alert" data-card-error hidden></p>
    <noscript><p class="alert">${t.cardNeedsScript}</p></noscript>
    <p class="muted">${t.keptCardNote}</p>
    <input type="hidden" name="card_token" value="" data-card-token />
    <${SecureField} id="kept_card_csc_field" label=${t.keptCardCsc(kept.last4)} />
    <${Installments}
      checkout=${checkout}
      plan=${plan}
      previewPath=${null}
      t=${t}
      locale=${locale}
      id="kept_card_installments"
    />
  </div>`;
}

/**
 * The instalments, each option with what it costs in all; the chosen one is selected. Each option
 * carries the texts the page shows when it is chosen (the total, the plan line, the button), so the
 * script moves them over as they are; without the script, where a card is paid without it (named
 * fields), "update amounts" prices the page again.
 */
function Installments({
  checkout,
  plan,
  previewPath,
  t,
  locale,
  id = 'installments',
}: {
  checkout: CardCheckout;
  plan?: BuyerPlan;
  previewPath: string | null;
  t: Messages;
  locale: Locale;
  id?: string;
}) {
  return html`<div class="field">
    <label for=${id}>${t.installments}</label>
    <select id=${id} name="installments" data-installments>
      ${checkout.installment_options.map((o) => {
        const option = {
          installments: o.installments,
          each: o.installment_amount,
          total: o.total,
          base: checkout.amount,
        };
        return html`<option
          value=${o.installments}
          selected=${o.installments === plan?.installments}
          data-total-text=${money(locale, o.total)}
          data-plan-text=${planText(t, locale, option)}
          data-pay-text=${t.pay(money(locale, o.total))}
        >
          ${t.installmentOption(
            o.installments,
            money(locale, o.installment_amount),
            money(locale, o.total),
            o.total === checkout.amount,
          )}
        </option>`;
      })}
    </select>
    ${
      previewPath && checkout.installment_options.length > 1
        ? html`<noscript>
            <button type="submit" class="secondary" formaction=${previewPath} formnovalidate>${t.updateAmounts}</button>
          </noscript>`
        : null
    }
  </div>`;
}
