import { formatAmount } from './money.ts';

/**
 * The events an organization's members are mailed about, each under its key of
 * `notification_settings` (the spec's two keys): every sale, renewals and invoices included, and every
 * new subscription. A key left out of an organization's settings counts as on (the default).
 */
export const NOTIFYING_EVENTS = {
  'sale.created': 'new_sale',
  'subscription.created': 'new_subscription',
} as const;

export type NotifyingEvent = keyof typeof NOTIFYING_EVENTS;

export const isNotifyingEvent = (type: string): type is NotifyingEvent => Object.hasOwn(NOTIFYING_EVENTS, type);

/**
 * A notification whose send failed is tried again 10 s later, doubling to 30 minutes apart, for up to a
 * day from its event (a notification later than that tells the merchant nothing the dashboard does not).
 */
export const NOTIFICATION_GIVE_UP_MS = 24 * 60 * 60 * 1000;

/** The wait after failed attempt number `attempt` (1 for the first). */
export function notificationRetryDelayMs(attempt: number): number {
  return Math.min(10_000 * 2 ** Math.min(attempt - 1, 30), 30 * 60 * 1000);
}

/**
 * How long a sender holds a claimed notification: a sender that died with it lets another claim it
 * after this. Longer than a send may take (the SMTP adapter gives up within a minute).
 */
export const NOTIFICATION_LEASE_MS = 2 * 60 * 1000;

/**
 * The mail's Message-ID, derived from the event (never random), so a copy sent again after a crash
 * between the send and its record carries the same id and mail clients and servers can tell it.
 * Its domain is the sender's.
 */
export function notificationMessageId(eventId: string, from: string): string {
  const domain = /@([^\s<>@]+)>?\s*$/.exec(from)?.[1] ?? 'localhost';
  return `<notification.${eventId}@${domain}>`;
}

/** What a notification tells, as the event and the rows it names recorded it. */
export interface NotificationFacts {
  type: NotifyingEvent;
  organizationName: string;
  /** The event's payload: the sale or the subscription. */
  data: Record<string, unknown>;
  productName: string | null;
  customerName: string | null;
  customerEmail: string | null;
  /** The subscription's price: its billing interval, for "every 3 months". */
  interval: string | null;
  intervalCount: number | null;
  createdAt: Date;
}

export interface RenderedNotification {
  subject: string;
  text: string;
}

/** The subject and plain-text body of a notification, in English like the rest of the API's text. */
export function renderNotification(f: NotificationFacts): RenderedNotification {
  const product = f.productName ?? 'a product';
  const amount = formatAmount(Number(f.data.amount ?? 0), String(f.data.currency ?? 'BRL'));
  const customer = f.customerName ? `${f.customerName} <${f.customerEmail}>` : (f.customerEmail ?? 'unknown');
  const lines = (rows: [string, unknown][]) =>
    rows.filter(([, value]) => value !== null && value !== undefined).map(([label, value]) => `${label}: ${value}`);
  if (f.type === 'sale.created') {
    const installments = Number(f.data.installments ?? 1);
    const charged = (cents: unknown) => formatAmount(Number(cents), String(f.data.currency ?? 'BRL'));
    // A card in instalments: what the buyer is charged, interest included (the sale's total_amount).
    const inInstallments =
      f.data.installment_amount !== undefined && f.data.total_amount !== undefined
        ? `${installments} x ${charged(f.data.installment_amount)} = ${charged(f.data.total_amount)} charged (interest included)`
        : `${amount} in ${installments} installments`;
    return {
      subject: `New sale: ${product} - ${amount}`,
      text: [
        `${f.organizationName} made a sale.`,
        '',
        ...lines([
          ['Product', product],
          ['Amount', amount],
          ...(installments > 1 ? ([['Installments', inInstallments]] as [string, unknown][]) : []),
          ['Customer', customer],
          ['Payment method', String(f.data.payment_method ?? 'credit_card').replaceAll('_', ' ')],
          ['Subscription', f.data.subscription_id],
          ['Sale', f.data.id],
          ['Date', f.createdAt.toISOString()],
        ]),
        '',
      ].join('\n'),
    };
  }
  const every = f.interval ? ` ${recurrence(f.interval, f.intervalCount ?? 1)}` : '';
  return {
    subject: `New subscription: ${product} - ${amount}${every}`,
    text: [
      `${f.organizationName} has a new subscriber.`,
      '',
      ...lines([
        ['Product', product],
        ['Amount', `${amount}${every}`],
        ['Customer', customer],
        ['Status', f.data.status],
        ['Trial ends', f.data.trial_end],
        ['Current period ends', f.data.current_period_end],
        ['Subscription', f.data.id],
        ['Date', f.createdAt.toISOString()],
      ]),
      '',
    ].join('\n'),
  };
}

const recurrence = (interval: string, count: number) =>
  count === 1 ? `every ${interval}` : `every ${count} ${interval}s`;
