import { defineEntity, p } from '@mikro-orm/core';
import type { TaxId } from '../../domain/tax-id.ts';

export interface BillingAddress {
  line1: string;
  city: string;
  state: string | null;
  postal_code: string | null;
  country: string;
}

export const Customer = defineEntity({
  name: 'Customer',
  tableName: 'customers',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    email: p.string(),
    name: p.string().nullable(),
    externalId: p.string().nullable(),
    billingName: p.string().nullable(),
    billingAddress: p.json<BillingAddress>().nullable(),
    taxId: p.json<TaxId>().nullable(),
    userMetadata: p.json<Record<string, unknown>>(),
    emailVerified: p.boolean(),
    avatarUrl: p.string().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    deletedAt: p.datetime().nullable(),
  },
});
