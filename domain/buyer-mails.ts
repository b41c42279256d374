import { formatAmount } from './money.ts';

/**
 * The buyer's mails (decision 0087), in pt-BR as the buyer's pages are: a receipt for each paid sale
 * (its `sale.paid` event) and, for a pix or boleto, the code to pay with as soon as the confirmed checkout
 * shows it (the `checkout.updated` that records it). Each is keyed by its own event, so the notification
 * queue (one row per event) sends it once, beside the members' mail of the same sale's `sale.created`.
 */
export type BuyerMailKind = 'receipt' | 'payment_instructions';

type Data = Record<string, unknown>;
const record = (value: unknown): Data | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Data) : null;
const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** Which buyer mail an event is, if any: a paid sale, or a confirmed checkout showing a pix code or a boleto. */
export function buyerMailKind(type: string, data: Data): BuyerMailKind | null {
  if (type === 'sale.paid') return 'receipt';
  if (type !== 'checkout.updated' || data.status !== 'confirmed') return null;
  const payment = record(data.gateway_payment_data);
  if (!payment || payment.status !== 'pending') return null;
  if (text(record(payment.pix)?.qr_code) || text(record(payment.boleto)?.digitable_line)) return 'payment_instructions';
  return null;
}

/** The buyer's address the event names: the sale's customer, or the checkout's. */
export function buyerAddress(type: string, data: Data): string | null {
  return type === 'sale.paid' ? text(record(data.customer)?.email) : text(data.customer_email);
}

/** Derived from the event, as notificationMessageId is, so a mail sent again carries the same id. */
export function buyerMailMessageId(kind: BuyerMailKind, eventId: string, from: string): string {
  const domain = /@([^\s<>@]+)>?\s*$/.exec(from)?.[1] ?? 'localhost';
  return `<${kind === 'receipt' ? 'receipt' : 'payment'}.${eventId}@${domain}>`;
}

export interface BuyerMailFacts {
  kind: BuyerMailKind;
  organizationName: string;
  data: Data;
  productName: string | null;
  customerName: string | null;
}

/**
 * What a mail says, in the order it says it: the plain-text part writes each block as its lines with a
 * blank line between blocks (decision 0087's text, unchanged); the HTML part (mailer/html-layout.ts,
 * decision 0094) lays the same blocks out under the merchant's brand, so the two never say different things.
 */
export type MailBlock =
  | { kind: 'paragraph'; text: string }
  /** A code the buyer copies (pix copia e cola, a boleto's digitable line): alone, in a fixed-width font. */
  | { kind: 'code'; text: string }
  /**
   * Labelled facts, one a line (`Produto: …`), and a sentence right after them. A row with `button` is
   * a link, which the HTML part shows as a button named so.
   */
  | { kind: 'facts'; rows: { label: string; value: string; button?: string }[]; note?: string };

export interface RenderedBuyerMail {
  subject: string;
  /** The HTML part's heading (the text part has none: its subject says it). */
  heading: string;
  blocks: MailBlock[];
  text: string;
}

/** The plain-text part of `blocks`. */
export function mailText(blocks: readonly MailBlock[]): string {
  const lines = (block: MailBlock): string[] => {
    if (block.kind !== 'facts') return [block.text];
    const rows = block.rows.map((row) => `${row.label}: ${row.value}`);
    return block.note === undefined ? rows : [...rows, block.note];
  };
  return `${blocks.map((block) => lines(block).join('\n')).join('\n\n')}\n`;
}

const brl = (cents: unknown, currency: unknown) =>
  formatAmount(Number(cents ?? 0), String(currency ?? 'BRL'), 'pt-BR').replace(/\u00a0/g, ' ');
const METHODS: Record<string, string> = { credit_card: 'cartão de crédito', pix: 'Pix', boleto: 'boleto' };
const dateTime = (iso: unknown) =>
  new Date(String(iso)).toLocaleString('pt-BR', {
    timeZone: 'America/Sao_Paulo',
    dateStyle: 'short',
    timeStyle: 'short',
  });
const date = (isoDay: unknown) => String(isoDay).slice(0, 10).split('-').reverse().join('/');

/**
 * How a sale was paid, the way the buyer's card statement shows it: by card in instalments, the count,
 * each instalment and the total with interest (what the sale recorded as charged).
 */
export function paidLine(data: Data): string {
  const method = String(data.payment_method ?? 'credit_card');
  const total = brl(data.total_amount ?? data.amount, data.currency);
  const installments = Number(data.installments ?? 1);
  if (method === 'credit_card' && installments > 1) {
    const each = brl(data.installment_amount, data.currency);
    return `${total} no cartão de crédito em ${installments}x de ${each} (total com juros)`;
  }
  return `${total} (${METHODS[method] ?? method})`;
}

const paragraph = (text: string): MailBlock => ({ kind: 'paragraph', text });

/** The subject, the blocks and the plain-text body of a buyer's mail. */
export function renderBuyerMail(f: BuyerMailFacts): RenderedBuyerMail {
  const product = f.productName ?? text(record(f.data.product)?.name) ?? 'sua compra';
  const greeting = paragraph(f.customerName ? `Olá, ${f.customerName}.` : 'Olá.');
  const mail = (subject: string, heading: string, blocks: MailBlock[]) => ({
    subject,
    heading,
    blocks,
    text: mailText(blocks),
  });
  if (f.kind === 'receipt') {
    return mail(`Recibo da sua compra em ${f.organizationName}: ${product}`, 'Recibo da sua compra', [
      greeting,
      paragraph(`Recebemos o seu pagamento a ${f.organizationName}.`),
      {
        kind: 'facts',
        rows: [
          { label: 'Produto', value: product },
          { label: 'Pago', value: paidLine(f.data) },
          { label: 'Data', value: dateTime(f.data.created_at) },
          { label: 'Pedido', value: String(f.data.id) },
        ],
      },
    ]);
  }
  const payment = record(f.data.gateway_payment_data) ?? {};
  const pix = record(payment.pix);
  const boleto = record(payment.boleto);
  const amount = brl(f.data.amount, f.data.currency);
  const how: MailBlock[] = pix
    ? [
        paragraph(`Para pagar ${amount} com Pix, copie o código abaixo e cole no app do seu banco (Pix copia e cola):`),
        { kind: 'code', text: String(pix.qr_code) },
        paragraph(`O código vale até ${dateTime(pix.expires_at)}.`),
      ]
    : [
        paragraph(`Para pagar ${amount} com boleto, use a linha digitável abaixo no app ou site do seu banco:`),
        { kind: 'code', text: String(boleto?.digitable_line) },
        {
          kind: 'facts',
          rows: [
            { label: 'Código de barras', value: String(boleto?.barcode) },
            { label: 'Vencimento', value: date(boleto?.due_date) },
            ...(text(boleto?.url) ? [{ label: 'Boleto', value: String(boleto?.url), button: 'Abrir o boleto' }] : []),
          ],
        },
      ];
  return mail(
    `${pix ? 'Seu código Pix' : 'Seu boleto'} para pagar ${product} em ${f.organizationName}`,
    pix ? 'Seu código Pix' : 'Seu boleto',
    [
      greeting,
      ...how,
      {
        kind: 'facts',
        rows: [{ label: 'Produto', value: product }],
        note: 'Assim que o pagamento for confirmado, enviaremos o recibo.',
      },
    ],
  );
}
