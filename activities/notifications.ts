import type { EntityManager } from '@mikro-orm/postgresql';
import { priceIntervals, productNames } from '../db/catalog/labels.ts';
import { customerContacts } from '../db/customer/notification-reads.ts';
import { filesByIds } from '../db/file/records.ts';
import {
  claimDueJobs,
  enqueueJobs,
  notifiedEvents,
  recordSent,
  rescheduleJob,
  sentEventIds,
  type SentRecord,
} from '../db/event/notifications.ts';
import type { OutboxEvent } from '../db/event/relay.ts';
import type { Orm } from '../db/orm.ts';
import { notifiedOrganizations, type NotifiedOrganization } from '../db/organization/notification-reads.ts';
import {
  isNotifyingEvent,
  NOTIFICATION_GIVE_UP_MS,
  NOTIFICATION_LEASE_MS,
  NOTIFYING_EVENTS,
  notificationMessageId,
  notificationRetryDelayMs,
  renderNotification,
} from '../domain/notifications.ts';
import type { Mailer } from '../mailer/port.ts';
import { brandedMailHtml, type MailBrand } from '../mailer/html-layout.ts';
import { buyerAddress, buyerMailKind, buyerMailMessageId, renderBuyerMail } from '../domain/buyer-mails.ts';
import { brandLogoPath, brandOf } from '../domain/branding.ts';
import { isMediaType } from '../domain/file-types.ts';
import type { NotificationOutcome, NotificationStart } from '../contracts/notification.ts';

/**
 * The relay's part for notifications: of the events it relays, those an organization wants its
 * members mailed about (the event's `notification_settings` key not false: left out, it is on by
 * default; the comparison never fails, so no stored value can stop the relay) and that have a member
 * to mail, each queued as one `notification_jobs` row, in the relay's transaction before its cursor
 * moves: one statement per pass, where a workflow per mail cost the checkout a fifth of its throughput
 * (docs/performance.md). A pass repeated after a crash queues nothing twice.
 */
export async function enqueueNotifications(tx: EntityManager, events: readonly OutboxEvent[]): Promise<number> {
  const candidates = events.filter(
    (e) => isNotifyingEvent(e.type) || (buyerMailKind(e.type, e.data) && buyerAddress(e.type, e.data)),
  );
  if (candidates.length === 0) return 0;
  const [organizations, sent] = await Promise.all([
    notifiedOrganizations(
      tx,
      candidates.map((e) => e.organizationId),
    ),
    sentEventIds(
      tx,
      candidates.map((e) => e.id),
    ),
  ]);
  const wanted = candidates.filter((e) => {
    const o = organizations.get(e.organizationId);
    if (!o || sent.has(e.id)) return false;
    if (!isNotifyingEvent(e.type)) return true; // a buyer's mail (domain/buyer-mails.ts), whatever the settings
    if (o.recipients.length === 0) return false;
    return o.notificationSettings[NOTIFYING_EVENTS[e.type]] !== false;
  });
  return (
    await enqueueJobs(
      tx,
      wanted.map((e) => ({ eventId: e.id, organizationId: e.organizationId })),
    )
  ).length;
}

export interface NotificationSenderDeps {
  orm: Orm;
  mailer: Mailer;
  from: string;
  /** PUBLIC_BASE_URL: the buyers' mails link the seller's logo under it (decision 0094). */
  publicBaseUrl: string;
  log: (message: string) => void;
}

export interface SendRound {
  /** Notifications claimed this round; a full round (`limit`) means more may be due. */
  claimed: number;
  sent: number;
  failed: number;
}

/** Notifications claimed and sent at once by one round. */
export const NOTIFICATIONS_PER_ROUND = 20;

/**
 * One round of the notification sender: claims the due notifications (moving each one's next attempt a
 * lease ahead, so a sender that dies with it lets another take it then; `skip locked`, so senders in
 * several workers share the queue) and sends them at once. A failed send is tried again on
 * domain/notifications.ts's schedule, until a day after its event.
 */
export async function sendDueNotifications(
  deps: NotificationSenderDeps,
  { at = new Date(), limit = NOTIFICATIONS_PER_ROUND }: { at?: Date; limit?: number } = {},
): Promise<SendRound> {
  const em = deps.orm.em.fork();
  const claimed = await claimDueJobs(em, at, NOTIFICATION_LEASE_MS, limit);
  const round: SendRound = { claimed: claimed.length, sent: 0, failed: 0 };
  if (claimed.length === 0) return round;
  const found = await notificationFacts(
    em,
    claimed.map((job) => job.eventId),
    deps.publicBaseUrl,
  );
  const records: SentRecord[] = [];
  const done: string[] = [];
  await Promise.all(
    claimed.map(async (job) => {
      const input = { eventId: job.eventId, organizationId: job.organizationId };
      try {
        const { record } = await deliver(deps, input, found.get(input.eventId));
        if (record) records.push(record);
        done.push(input.eventId);
        round.sent++;
      } catch (err) {
        round.failed++;
        const why = err instanceof Error ? err.message : String(err);
        deps.log(`notification ${input.eventId}: attempt ${String(job.attempts)} failed (${why})`);
        await rescheduleJob(em, input.eventId, {
          at,
          retryMs: notificationRetryDelayMs(job.attempts),
          giveUpMs: NOTIFICATION_GIVE_UP_MS,
          error: why,
        });
      }
    }),
  );
  await recordSent(em, records, done);
  return round;
}

/**
 * Mails an event to the organization's members at the time of sending (all of them in one message),
 * rendered from the event's payload and the customer and product it names. The event's row in
 * `notifications` is checked before and written after (with its queue row removed in the same
 * statement, for a whole round at once): a second claim of a sent one sends nothing. One that crashed
 * between the send and the write sends the mail again, with the same Message-ID
 * (docs/decisions/0045-notifications.md).
 */
export async function sendNotification(
  deps: NotificationSenderDeps,
  input: NotificationStart,
): Promise<NotificationOutcome> {
  const em = deps.orm.em.fork();
  const found = await notificationFacts(em, [input.eventId], deps.publicBaseUrl);
  const { outcome, record } = await deliver(deps, input, found.get(input.eventId));
  await recordSent(em, record ? [record] : [], [input.eventId]);
  return outcome;
}

/**
 * What a notification needs, read for a whole round at once (a round is one per few sales): the
 * events, then their organizations, customers, products and prices together. A sale's data names its
 * customer and product as objects (the sale's record), a subscription's by id.
 */
interface NotificationFacts {
  type: string;
  data: Record<string, unknown>;
  createdAt: Date;
  organizationId: string;
  organizationName: string;
  /** The seller's brand as its buyers' mails show it, read once for the round. */
  brand: MailBrand;
  customerName: string | null;
  customerEmail: string | null;
  productName: string | null;
  interval: string | null;
  intervalCount: number | null;
  /** The organization's members' addresses now, in the order they joined. */
  recipients: string[];
  /** Set when it was sent already. */
  sentMessageId: string | null;
  sentRecipients: string[] | null;
}

/** `data[key]`, or the id of the object `data[objectKey]`, when it is a uuid. */
function idIn(data: Record<string, unknown>, key: string, objectKey?: string): string | null {
  const inner = objectKey === undefined ? undefined : data[objectKey];
  const value = data[key] ?? (inner && typeof inner === 'object' && 'id' in inner ? inner.id : undefined);
  return typeof value === 'string' && UUID.test(value) ? value : null;
}
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function notificationFacts(
  em: EntityManager,
  eventIds: string[],
  publicBaseUrl: string,
): Promise<Map<string, NotificationFacts>> {
  const events = await notifiedEvents(em, eventIds);
  const refs = events.map((e) => ({
    customer: idIn(e.data, 'customer_id', 'customer'),
    product: idIn(e.data, 'product_id', 'product'),
    price: idIn(e.data, 'price_id'),
  }));
  const present = (ids: (string | null)[]) => ids.filter((id) => id !== null);
  const [organizations, customers, products, prices] = await Promise.all([
    notifiedOrganizations(
      em,
      events.map((e) => e.organizationId),
    ),
    customerContacts(em, present(refs.map((r) => r.customer))),
    productNames(em, present(refs.map((r) => r.product))),
    priceIntervals(em, present(refs.map((r) => r.price))),
  ]);
  const brands = await mailBrands(em, organizations, publicBaseUrl);
  const facts = new Map<string, NotificationFacts>();
  events.forEach((e, i) => {
    const organization = organizations.get(e.organizationId);
    if (!organization) return;
    const ref = refs[i]!;
    const customer = ref.customer === null ? undefined : customers.get(ref.customer);
    const price = ref.price === null ? undefined : prices.get(ref.price);
    facts.set(e.id, {
      type: e.type,
      data: e.data,
      createdAt: e.createdAt,
      organizationId: e.organizationId,
      organizationName: organization.name,
      brand: brands.get(e.organizationId)!,
      customerName: customer?.name ?? null,
      customerEmail: customer?.email ?? null,
      productName: (ref.product === null ? undefined : products.get(ref.product)) ?? null,
      interval: price?.interval ?? null,
      intervalCount: price?.intervalCount ?? null,
      recipients: organization.recipients,
      sentMessageId: e.sentMessageId ?? null,
      sentRecipients: e.sentRecipients ?? null,
    });
  });
  return facts;
}

/**
 * Each organization's brand for its buyers' mails (domain/branding.ts): its colour, and its logo when the
 * file it names is still its own image, linked by the route that stays valid as long as a mail is kept
 * (decision 0094). No brand is the layout's neutral default.
 */
async function mailBrands(
  em: EntityManager,
  organizations: Map<string, NotifiedOrganization>,
  publicBaseUrl: string,
): Promise<Map<string, MailBrand>> {
  const brands = [...organizations].map(([id, o]) => ({ id, name: o.name, ...brandOf(o.profileSettings) }));
  const logoIds = brands.map((b) => b.logoFileId).filter((id) => id !== null && UUID.test(id));
  const logos = await filesByIds(em, logoIds as string[]);
  const base = publicBaseUrl.replace(/\/+$/, '');
  return new Map(
    brands.map((b) => {
      const logo = logos.some((f) => f.id === b.logoFileId && f.organizationId === b.id && isMediaType(f.mimeType));
      const logoUrl = logo ? `${base}${brandLogoPath(b.id)}` : null;
      return [b.id, { name: b.name, color: b.color, ink: b.ink, logoUrl }];
    }),
  );
}

/**
 * Mails one notification; what its record is when it was sent (null when there was nothing to send:
 * sent already, not a notifying event, or no member to mail). It writes nothing: recordSent does.
 */
async function deliver(
  deps: NotificationSenderDeps,
  input: NotificationStart,
  facts: NotificationFacts | undefined,
): Promise<{ outcome: NotificationOutcome; record: SentRecord | null }> {
  if (facts?.sentMessageId) {
    const outcome = { sent: false as const, messageId: facts.sentMessageId, recipients: facts.sentRecipients ?? [] };
    return { outcome, record: null };
  }
  const nothing = { outcome: { sent: false as const, messageId: null, recipients: [] }, record: null };
  if (!facts || facts.organizationId !== input.organizationId) return nothing;
  const buyerMail = buyerMailKind(facts.type, facts.data);
  if (buyerMail) return deliverToBuyer(deps, input, facts, buyerMail);
  if (!isNotifyingEvent(facts.type)) return nothing;
  const { recipients } = facts;
  if (recipients.length === 0) return nothing;
  const { subject, text } = renderNotification({
    type: facts.type,
    organizationName: facts.organizationName,
    data: facts.data,
    productName: facts.productName,
    customerName: facts.customerName,
    customerEmail: facts.customerEmail,
    interval: facts.interval,
    intervalCount: facts.intervalCount,
    createdAt: facts.createdAt,
  });
  const messageId = notificationMessageId(input.eventId, deps.from);
  const sent = await deps.mailer.send({
    to: recipients,
    subject,
    text,
    messageId,
    headers: { 'X-Billing-Event-Id': input.eventId, 'X-Billing-Event-Type': facts.type },
  });
  deps.log(`notification ${input.eventId} (${facts.type}) sent to ${recipients.join(', ')}: ${sent.where}`);
  const record = { eventId: input.eventId, organizationId: input.organizationId, recipients, subject, messageId };
  return { outcome: { sent: true, messageId, recipients }, record };
}

/** The buyer's mail of the event (domain/buyer-mails.ts): to the address the event names, recorded as a member mail is. */
async function deliverToBuyer(
  deps: NotificationSenderDeps,
  input: NotificationStart,
  facts: NotificationFacts,
  kind: NonNullable<ReturnType<typeof buyerMailKind>>,
): Promise<{ outcome: NotificationOutcome; record: SentRecord | null }> {
  const to = buyerAddress(facts.type, facts.data);
  if (!to) return { outcome: { sent: false, messageId: null, recipients: [] }, record: null };
  const { subject, heading, blocks, text } = renderBuyerMail({
    kind,
    organizationName: facts.organizationName,
    data: facts.data,
    productName: facts.productName,
    customerName:
      facts.customerName ?? (typeof facts.data.customer_name === 'string' ? facts.data.customer_name : null),
  });
  const messageId = buyerMailMessageId(kind, input.eventId, deps.from);
  const recipients = [to];
  const sent = await deps.mailer.send({
    to: recipients,
    subject,
    text,
    html: brandedMailHtml({ subject, heading, blocks, brand: facts.brand }),
    messageId,
    headers: { 'X-Billing-Event-Id': input.eventId, 'X-Billing-Event-Type': facts.type },
  });
  deps.log(`buyer mail ${input.eventId} (${kind}) sent to ${to}: ${sent.where}`);
  const record = { eventId: input.eventId, organizationId: input.organizationId, recipients, subject, messageId };
  return { outcome: { sent: true, messageId, recipients }, record };
}
