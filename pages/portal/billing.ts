import type { BrandView } from '../../api/organization-brand.ts';
import { z } from 'zod';
import { updateCustomerBody, type UpdateCustomerBody } from '../../use-cases/schemas/customers.ts';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { CsrfField, renderPortalPage, type PortalFrame } from './layout.ts';
import { messagesFor } from './messages.ts';
import { portalPaths } from './paths.ts';
import type { CustomerEntity } from '../../use-cases/portal-reads.ts';

/** The billing details page: name, address and tax id, checked by the customer update's own schema and rules. */

export const billingForm = z.object({
  csrf: z.string().max(200).optional(),
  billing_name: z.string().max(1000).optional(),
  line1: z.string().max(1000).optional(),
  city: z.string().max(1000).optional(),
  state: z.string().max(1000).optional(),
  postal_code: z.string().max(1000).optional(),
  country: z.string().max(1000).optional(),
  tax_id: z.string().max(1000).optional(),
});
export type BillingForm = z.infer<typeof billingForm>;

/** Which of the page's fields a refusal points at: the update body's field names. */
export type BillingField = 'billing_name' | 'billing_address' | 'tax_id';

/**
 * The form as the customer update's body (an empty field clears it; an address with no field filled
 * is none), validated by that body's schema; the fields it refuses otherwise.
 */
export function billingUpdateOf(form: BillingForm): { body: UpdateCustomerBody } | { invalid: BillingField[] } {
  const text = (v: string | undefined) => v?.trim() ?? '';
  const address = [form.line1, form.city, form.state, form.postal_code, form.country].map(text);
  const [line1, city, state, postalCode, country] = address;
  const parsed = updateCustomerBody.safeParse({
    billing_name: text(form.billing_name) || null,
    billing_address: address.every((v) => v === '')
      ? null
      : { line1, city, country, ...(state ? { state } : {}), ...(postalCode ? { postal_code: postalCode } : {}) },
    tax_id: text(form.tax_id) || null,
  });
  if (parsed.success) return { body: parsed.data };
  const fields = new Set(parsed.error.issues.map((i) => String(i.path[0]) as BillingField));
  return { invalid: [...fields] };
}

export function renderBillingPage(model: {
  locale: Locale;
  customer: CustomerEntity;
  brand?: BrandView | null;
  csrf: string;
  /** What was sent, shown again after a refusal; else the customer's details. */
  values?: BillingForm;
  invalid?: BillingField[];
  notice?: PortalFrame['notice'];
}): string {
  const t = messagesFor(model.locale);
  const c = model.customer;
  const values: BillingForm = model.values ?? {
    billing_name: c.billingName ?? '',
    line1: c.billingAddress?.line1 ?? '',
    city: c.billingAddress?.city ?? '',
    state: c.billingAddress?.state ?? '',
    postal_code: c.billingAddress?.postal_code ?? '',
    country: c.billingAddress?.country ?? '',
    tax_id: c.taxId?.number ?? '',
  };
  const invalid = new Set(model.invalid ?? []);
  const field = (name: keyof BillingForm, label: string, autocomplete: string, group: BillingField) =>
    html`<${Field}
      name=${name}
      label=${label}
      value=${values[name] ?? ''}
      autocomplete=${autocomplete}
      error=${invalid.has(group) && name === firstOf(group) ? t.fieldErrors[group] : null}
      invalid=${invalid.has(group)}
    />`;
  return renderPortalPage({
    locale: model.locale,
    customer: c,
    brand: model.brand,
    section: 'billing',
    title: t.billing,
    notice: model.notice,
    children: html`<form method="post" action=${portalPaths.billing} class="portal-form" novalidate>
      <${CsrfField} token=${model.csrf} />
      ${field('billing_name', t.billingName, 'billing name', 'billing_name')}
      <fieldset>
        <legend>${t.address}</legend>
        ${field('line1', t.line1, 'billing address-line1', 'billing_address')}
        <div class="row">
          ${field('city', t.city, 'billing address-level2', 'billing_address')}
          ${field('state', t.state, 'billing address-level1', 'billing_address')}
        </div>
        <div class="row">
          ${field('postal_code', t.postalCode, 'billing postal-code', 'billing_address')}
          ${field('country', t.country, 'billing country', 'billing_address')}
        </div>
      </fieldset>
      ${field('tax_id', t.taxId, 'off', 'tax_id')}
      <button type="submit">${t.save}</button>
    </form>`,
  });
}

/** The field under which a group's message is written (the address's first). */
const firstOf = (group: BillingField): keyof BillingForm => (group === 'billing_address' ? 'line1' : group);

function Field(props: {
  name: string;
  label: string;
  value: string;
  autocomplete: string;
  error: string | null;
  invalid: boolean;
}) {
  const errorId = `${props.name}-error`;
  return html`<div class="field">
    <label for=${props.name}>${props.label}</label>
    <input
      id=${props.name}
      name=${props.name}
      value=${props.value}
      autocomplete=${props.autocomplete}
      aria-invalid=${props.invalid ? 'true' : undefined}
      aria-describedby=${props.error ? errorId : undefined}
    />
    ${props.error ? html`<p class="field-error" id=${errorId}>${props.error}</p>` : null}
  </div>`;
}
