import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { findCustomerByKey, type CustomerKey, type CustomerRow } from '../db/customer/customers.ts';
import { recordEvent } from '../db/events.ts';
import type { Orm } from '../db/orm.ts';
import { parseTaxId, type TaxId } from '../domain/tax-id.ts';
import { notFound, unprocessable } from '../use-cases/errors.ts';
import { isUuid } from '../use-cases/schemas/common.ts';
import { customerRecord, storedBillingAddress, type UpdateCustomerBody } from '../use-cases/schemas/customers.ts';

/**
 * Writing a customer: the merchant's customer routes and the customer portal's billing details page
 * both update through `updateCustomer`, so the tax_id check digits, the email's uniqueness and the
 * customer.updated event are the same whoever changes it.
 */

type CustomerEntity = CustomerRow;
/** A customer is addressed by our id or by the merchant's external_id; both routes behave the same. */
export type { CustomerKey };

/** The sent fields change, under the customer's lock; a customer.updated event names those that really changed. */
export async function updateCustomer(
  orm: Orm,
  organizationId: string,
  key: CustomerKey,
  body: UpdateCustomerBody,
): Promise<CustomerEntity> {
  const taxId = body.tax_id == null ? body.tax_id : validTaxId(body.tax_id);
  return uniquely(() =>
    orm.em.fork().transactional(async (tx) => {
      // Locked, so two concurrent metadata merges both land.
      const current = await findCustomer(tx, organizationId, key, true);
      const changed = applyUpdate(current, body, taxId);
      if (changed.length > 0) {
        current.updatedAt = new Date();
        recordEvent(tx, organizationId, 'customer.updated', { ...customerRecord(current), changed_fields: changed });
      }
      return current;
    }),
  );
}

export async function findCustomer(
  em: EntityManager,
  organizationId: string,
  key: CustomerKey,
  lock = false,
): Promise<CustomerEntity> {
  // A malformed id names no customer: 404, like any other unknown id.
  if ('id' in key && !isUuid(key.id)) throw notFound('Customer');
  const customer = await findCustomerByKey(em, organizationId, key, lock);
  if (!customer) throw notFound('Customer');
  return customer;
}

/**
 * Applies the sent fields of a PATCH (absent: untouched; null: cleared) and returns the names of the
 * fields whose value really changed.
 */
function applyUpdate(c: CustomerEntity, body: UpdateCustomerBody, taxId: TaxId | null | undefined): string[] {
  const changed: string[] = [];
  const set = <K extends keyof CustomerEntity>(wire: string, prop: K, value: CustomerEntity[K]) => {
    if (sameJson(c[prop], value)) return;
    c[prop] = value;
    changed.push(wire);
  };
  if (body.email !== undefined) set('email', 'email', body.email);
  if (body.name !== undefined) set('name', 'name', body.name);
  if (body.billing_name !== undefined) set('billing_name', 'billingName', body.billing_name);
  if (body.billing_address !== undefined) {
    set('billing_address', 'billingAddress', body.billing_address ? storedBillingAddress(body.billing_address) : null);
  }
  if (taxId !== undefined) set('tax_id', 'taxId', taxId);
  if (body.user_metadata !== undefined)
    set('user_metadata', 'userMetadata', mergeMetadata(c.userMetadata, body.user_metadata));
  if (body.email_verified !== undefined) set('email_verified', 'emailVerified', body.email_verified);
  // A verification of the old address says nothing about the new one.
  else if (changed.includes('email')) set('email_verified', 'emailVerified', false);
  return changed;
}

/** Sent keys are added or updated, others kept; a null value removes its key. */
export function mergeMetadata(
  current: Record<string, unknown>,
  sent: Record<string, unknown>,
): Record<string, unknown> {
  const merged = { ...current };
  for (const [key, value] of Object.entries(sent)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

/**
 * CPF/CNPJ check digits, and a given type that agrees with them: rules of the digits that the
 * document states only as formats (`cpf`, `cnpj`, `cpf-cnpj`), so a well-formed tax_id that breaks
 * them is a 422 of its own code, naming the field.
 */
export function validTaxId(input: string | { type?: 'cpf' | 'cnpj'; number: string }): TaxId {
  const parsed = parseTaxId(input);
  if (parsed) return parsed;
  const other = typeof input === 'string' || input.type === undefined ? null : parseTaxId(input.number);
  const detail =
    other && typeof input !== 'string'
      ? `body.tax_id: type is ${input.type} but the number is a valid ${other.type}`
      : 'body.tax_id: not a valid CPF (11 digits) or CNPJ (14 digits); the check digits do not match';
  throw unprocessable('invalid_tax_id', 'Invalid tax_id', detail);
}

/** The unique indexes are the source of truth, so concurrent creates still give exactly one success. */
export async function uniquely<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) {
      const constraint = (err as { constraint?: string }).constraint;
      if (constraint === 'customers_org_email_uq') {
        throw unprocessable(
          'email_taken',
          'Email already in use',
          'Another customer of this organization has this email',
        );
      }
      if (constraint === 'customers_org_external_id_uq') {
        throw unprocessable(
          'external_id_taken',
          'External id already in use',
          'Another customer of this organization has this external_id',
        );
      }
    }
    throw err;
  }
}

/** Equality that ignores key order, which jsonb does not keep. */
function sameJson(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(v: unknown): string {
  if (v instanceof Date) return JSON.stringify(v.toISOString());
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const entries = Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}
