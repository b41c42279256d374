import type { MailBlock } from '../domain/buyer-mails.ts';
import { inkOn } from '../domain/branding.ts';

/**
 * The HTML part of a buyer's mail (decision 0094): the blocks domain/buyer-mails.ts says, under the
 * merchant's header bar (its colour, its logo and its name). Built the way mail clients read HTML:
 * nested presentation tables and inline styles (many drop `<style>` and ignore flex or grid), no
 * script, nothing but the logo loaded from elsewhere, and every word still there with images blocked
 * (the logo stands beside the name, so its alt text is empty). Every text from the data is escaped here.
 */

/** The seller as its mails show it. */
export interface MailBrand {
  name: string;
  /** `#rrggbb` and the text colour on it (domain/branding.ts), or null for the neutral default. */
  color: string | null;
  ink: string | null;
  /** An absolute https URL of the logo that stays valid as long as the mail is kept, or null. */
  logoUrl: string | null;
}

/** The pages' own accent (pages/assets/pages.css), for a seller without a colour. */
export const NEUTRAL_COLOR = '#0b5cad';

const FONT = 'font-family:Arial,Helvetica,sans-serif;';
const TEXT = '#111827';
const QUIET = '#4b5563';
const PAPER = '#f3f4f6';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** A link only to the web: anything else (`javascript:`, `data:`) stays text. */
const webUrl = (value: string) => /^https?:\/\/[^\s"'<>]+$/i.test(value);

const table = (style: string, rows: string) =>
  `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="border-collapse:collapse;${style}">${rows}</table>`;

function button(label: string, url: string, color: string, ink: string): string {
  const a = `<a href="${escapeHtml(url)}" style="${FONT}display:inline-block;padding:12px 20px;color:${ink};text-decoration:none;font-weight:bold;font-size:16px;white-space:nowrap;">${escapeHtml(label)}</a>`;
  return `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="border-collapse:collapse;"><tr><td bgcolor="${color}" style="background:${color};border-radius:4px;">${a}</td></tr></table>`;
}

function block(b: MailBlock, color: string, ink: string): string {
  if (b.kind === 'paragraph') return `<p style="margin:0 0 16px;">${escapeHtml(b.text)}</p>`;
  if (b.kind === 'code') {
    return `<p style="margin:0 0 16px;padding:12px;background:${PAPER};border:1px solid #d1d5db;font-family:'Courier New',Courier,monospace;font-size:14px;word-break:break-all;">${escapeHtml(b.text)}</p>`;
  }
  // A link is a button of its own under the facts: beside a label it would not fit a phone's width.
  const links = b.rows.filter((row) => row.button && webUrl(row.value));
  const rows = b.rows.map((row) => {
    if (links.includes(row)) return '';
    const value = escapeHtml(row.value);
    return `<tr><th scope="row" align="left" valign="top" style="${FONT}padding:4px 12px 4px 0;font-size:15px;color:${QUIET};white-space:nowrap;">${escapeHtml(row.label)}</th><td style="${FONT}padding:4px 0;font-size:15px;color:${TEXT};word-break:break-word;">${value}</td></tr>`;
  });
  const facts = `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="border-collapse:collapse;margin:0 0 16px;">${rows.join('')}</table>`;
  const buttons = links.map(
    (row) => `<div style="margin:0 0 16px;">${button(row.button!, row.value, color, ink)}</div>`,
  );
  const note = b.note === undefined ? '' : `<p style="margin:0 0 16px;">${escapeHtml(b.note)}</p>`;
  return facts + buttons.join('') + note;
}

/** The whole HTML document of a mail: `lang="pt-BR"`, as the buyer's pages and the text part are. */
export function brandedMailHtml(mail: {
  subject: string;
  heading: string;
  blocks: readonly MailBlock[];
  brand: MailBrand;
}): string {
  const color = mail.brand.color ?? NEUTRAL_COLOR;
  const ink = mail.brand.color && mail.brand.ink ? mail.brand.ink : inkOn(color);
  const name = escapeHtml(mail.brand.name);
  const logo =
    mail.brand.logoUrl && webUrl(mail.brand.logoUrl)
      ? `<td valign="middle" style="padding:0 16px 0 0;"><img src="${escapeHtml(mail.brand.logoUrl)}" alt="" height="40" style="display:block;height:40px;width:auto;max-width:160px;border:0;"></td>`
      : '';
  const header = `<tr><td bgcolor="${color}" style="background:${color};padding:16px 24px;">${table(
    '',
    `<tr>${logo}<td width="100%" valign="middle" style="${FONT}color:${ink};font-size:20px;font-weight:bold;">${name}</td></tr>`,
  )}</td></tr>`;
  const body = `<tr><td style="${FONT}padding:24px;font-size:16px;line-height:1.5;color:${TEXT};"><h1 style="margin:0 0 16px;font-size:22px;line-height:1.3;color:${TEXT};">${escapeHtml(mail.heading)}</h1>${mail.blocks.map((b) => block(b, color, ink)).join('')}</td></tr>`;
  const footer = `<tr><td style="${FONT}padding:16px 24px;border-top:1px solid #e5e7eb;font-size:13px;color:${QUIET};">Enviado por ${name}.</td></tr>`;
  return [
    '<!DOCTYPE html>',
    '<html lang="pt-BR">',
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta name="color-scheme" content="light"><title>${escapeHtml(mail.subject)}</title></head>`,
    `<body style="margin:0;padding:0;background:${PAPER};">`,
    table(
      `background:${PAPER};`,
      `<tr><td align="center" style="padding:24px 12px;">${table(
        'max-width:600px;background:#ffffff;text-align:left;',
        header + body + footer,
      )}</td></tr>`,
    ),
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
