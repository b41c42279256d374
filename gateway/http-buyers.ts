import { z } from 'zod';
import type { Buyer, BuyerInput } from './port.ts';

/** The buyer's wire shapes: name and tax id are optional in the port, explicit nulls on the wire. */
export const wireBuyerInput = z.object({
  email: z.string().min(3).max(320),
  name: z.string().max(255).nullish(),
  tax_id: z.string().max(32).nullish(),
});
export type WireBuyerInput = z.infer<typeof wireBuyerInput>;

export function buyerInputToWire(b: BuyerInput): WireBuyerInput {
  return { email: b.email, name: b.name ?? null, tax_id: b.taxId ?? null };
}

export function buyerInputFromWire(w: WireBuyerInput): BuyerInput {
  return { email: w.email, name: w.name ?? null, taxId: w.tax_id ?? null };
}

export const wireBuyer = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string().nullable(),
  tax_id: z.string().nullable(),
});
export type WireBuyer = z.infer<typeof wireBuyer>;

export function buyerToWire(b: Buyer): WireBuyer {
  return { id: b.id, email: b.email, name: b.name ?? null, tax_id: b.taxId ?? null };
}

export function buyerFromWire(w: WireBuyer): Buyer {
  return { id: w.id, email: w.email, name: w.name, taxId: w.tax_id };
}
