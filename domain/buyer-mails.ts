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

export interface RenderedBuyerMail {
  subject: string;
  text: string;
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

/** The subject and plain-text body of a buyer's mail. */
export function renderBuyerMail(f: BuyerMailFacts): RenderedBuyerMail {
  const product = f.productName ?? text(record(f.data.product)?.name) ?? 'sua compra';
  const greeting = f.customerName ? `Olá, ${f.customerName}.` : 'Olá.';
  if (f.kind === 'receipt') {
    return {
      subject: `Recibo da sua compra em ${f.organizationName}: ${product}`,
      text: [
        greeting,
        '',
        `Recebemos o seu pagamento a ${f.organizationName}.`,
        '',
        `Produto: ${product}`,
        `Pago: ${paidLine(f.data)}`,
        `Data: ${dateTime(f.data.created_at)}`,
        `Pedido: ${String(f.data.id)}`,
        '',
      ].join('\n'),
    };
  }
  const payment = record(f.data.gateway_payment_data) ?? {};
  const pix = record(payment.pix);
  const boleto = record(payment.boleto);
  const amount = brl(f.data.amount, f.data.currency);
  const how = pix
    ? [
        `Para pagar ${amount} com Pix, copie o código abaixo e cole no app do seu banco (Pix copia e cola):`,
        '',
        String(pix.qr_code),
        '',
        `O código vale até ${dateTime(pix.expires_at)}.`,
      ]
    : [
        `Para pagar ${amount} com boleto, use a linha digitável abaixo no app ou site do seu banco:`,
        '',
        String(boleto?.digitable_line),
        '',
        `Código de barras: ${String(boleto?.barcode)}`,
        `Vencimento: ${date(boleto?.due_date)}`,
        ...(text(boleto?.url) ? [`Boleto: ${String(boleto?.url)}`] : []),
      ];
  return {
    subject: `${pix ? 'Seu código Pix' : 'Seu boleto'} para pagar ${product} em ${f.organizationName}`,
    text: [
      greeting,
      '',
      ...how,
      '',
      `Produto: ${product}`,
      `Assim que o pagamento for confirmado, enviaremos o recibo.`,
      '',
    ].join('\n'),
  };
}
