import { z } from 'zod';

/** What the dashboard's form posts share. */

export const organizationParams = z.object({ organization_id: z.string().max(64) });

/** A field that may repeat (checkboxes): one value arrives as a string, several as an array. */
export const formList = z
  .union([z.string().max(200), z.array(z.string().max(200)).max(50)])
  .optional()
  .transform((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]));

/** A form's amount in reais ("99,90", "99.90", "1.234,56") as integer cents; undefined when it is not one. */
export function centsOf(text: string | undefined): number | undefined {
  const t = (text ?? '').trim().replace(/^R\$\s*/, '');
  const m = /^(\d{1,3}(?:[.\s]\d{3})*|\d+)(?:[,.](\d{1,2}))?$/.exec(t);
  if (!m) return undefined;
  const reais = Number(m[1]!.replace(/[.\s]/g, ''));
  const cents = Number((m[2] ?? '0').padEnd(2, '0'));
  return reais * 100 + cents;
}

/** A list's `?page=`: a whole number from 1, else the first page. */
export function pageNumberOf(text: string | undefined): number {
  const n = Number(text);
  return Number.isSafeInteger(n) && n >= 1 ? n : 1;
}
