import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { sendDueNotifications, sendNotification } from '../../activities/notifications.ts';
import { openMailer } from '../../mailer/index.ts';
import type { Mailer } from '../../mailer/port.ts';
import { useApi, type TestApi } from '../helpers/api.ts';
import { makeCheckout } from '../helpers/checkouts.ts';
import { TEST_MAIL_OUTBOX_DIR } from '../helpers/env.ts';
import { makeMember, makeOrganization, unique } from '../helpers/fixtures.ts';
import { outboxMails } from '../helpers/mail.ts';
import { paidSubscription, payByCard } from '../helpers/subscriptions.ts';
import { relayPassed } from '../helpers/webhook-relay.ts';
import { waitFor } from './stack.ts';

/**
 * Notifications end to end: the real API, the test run's worker process (its relay queues the
 * notifications, its sender mails them) and the worker's outbox mailer, whose folder
 * (MAIL_OUTBOX_DIR) is the run's own; each test's organizations and members are its own.
 */
let api: TestApi;
let temporal: Client;
useApi((stack) => ({ api, temporal } = stack));

const sql = (text: string, params: unknown[] = []) =>
  api.orm.em.getConnection().execute<Record<string, any>[]>(text, params);

/** An organization with these settings and members; their addresses, in the order they joined. */
async function organization(settings: { new_sale: boolean; new_subscription: boolean }, members: number) {
  const { id } = await makeOrganization(api.orm);
  await sql('update organizations set notification_settings = ?::jsonb where id = ?', [JSON.stringify(settings), id]);
  const emails: string[] = [];
  for (let i = 0; i < members; i++) {
    emails.push(`${unique('member')}@example.com`);
    await makeMember(api.orm, id, emails[i]!, i === 0 ? 'owner' : 'member');
  }
  return { id, emails };
}

/** The event of `type` about the record `objectId`, once committed. */
async function eventAbout(organizationId: string, type: string, objectId: string): Promise<string> {
  const [row] = await sql('select id from events where organization_id = ? and type = ? and data ->> ? = ?', [
    organizationId,
    type,
    'id',
    objectId,
  ]);
  return row!.id as string;
}

/** A card sale of `amount` for the organization, paid through the API: its sale.created event. */
async function sale(organizationId: string, amount: number, productName: string) {
  const c = await makeCheckout(api.orm, temporal, { organizationId, amount, productName });
  expect((await payByCard(api, c.clientSecret)).status).toBe(200);
  const [row] = await sql('select id from sales where checkout_id = ?', [c.id]);
  return { buyer: c.email!, eventId: await eventAbout(organizationId, 'sale.created', row!.id as string) };
}

/** Waits for the notification's record, written once its mail is out. */
async function notified(eventId: string): Promise<Record<string, any>> {
  await waitFor(async () => (await notificationRows(eventId)).length === 1, 30_000, `notification of ${eventId}`);
  return (await notificationRows(eventId))[0]!;
}
const notificationRows = (eventId: string) => sql('select * from notifications where event_id = ?', [eventId]);
/** The event's row in the queue, its times as dates. */
const queuedRows = async (eventId: string) =>
  (await sql('select * from notification_jobs where event_id = ?', [eventId])).map((r): Record<string, any> => ({
    ...r,
    next_attempt_at: new Date(r.next_attempt_at),
    gave_up_at: r.gave_up_at && new Date(r.gave_up_at),
  }));

/** Waits until the relay's cursor is past the event: every notification it would queue for it is queued. */
const relayedPast = (eventId: string) => relayPassed(api.orm, eventId, 30_000);

const mailsAbout = async (eventId: string) =>
  (await outboxMails(TEST_MAIL_OUTBOX_DIR)).filter((m) => m.headers['x-billing-event-id'] === eventId);
const mailsTo = async (email: string) => (await outboxMails(TEST_MAIL_OUTBOX_DIR)).filter((m) => m.to.includes(email));

async function expectNoNotification(eventId: string, recipients: string[]) {
  await relayedPast(eventId);
  expect(await queuedRows(eventId)).toEqual([]);
  expect(await notificationRows(eventId)).toEqual([]);
  for (const email of recipients) expect(await mailsTo(email)).toEqual([]);
}

describe('new_sale', () => {
  it('mails each member of an organization with it on once per sale, with the product, amount and customer', async () => {
    const on = await organization({ new_sale: true, new_subscription: false }, 2);
    const { buyer, eventId } = await sale(on.id, 12_345, 'Guitar course');
    const record = await notified(eventId);
    expect(await queuedRows(eventId)).toEqual([]);

    const [mail, ...more] = await mailsAbout(eventId);
    expect(more).toEqual([]);
    expect(mail!.to).toEqual(on.emails);
    expect(mail!.headers.subject).toBe('New sale: Guitar course - R$123.45');
    expect(mail!.headers['message-id']).toBe(`<notification.${eventId}@localhost>`);
    expect(mail!.text).toContain('Amount: R$123.45\n');
    expect(mail!.text).toContain(`Customer: `);
    expect(mail!.text).toContain(buyer);
    for (const email of on.emails) expect(await mailsTo(email)).toHaveLength(1);
    expect(record).toMatchObject({ organization_id: on.id, recipients: on.emails, subject: mail!.headers.subject });
  });

  it('mails nobody of an organization with it off', async () => {
    const off = await organization({ new_sale: false, new_subscription: true }, 1);
    const { eventId } = await sale(off.id, 5_000, 'Guitar course');
    await expectNoNotification(eventId, off.emails);
  });
});

describe('new_subscription', () => {
  it('mails the members of a new subscription, and not its sale when new_sale is off', async () => {
    const org = await organization({ new_sale: false, new_subscription: true }, 1);
    const { checkoutId, row } = await paidSubscription(api, temporal, {
      organizationId: org.id,
      recurrenceBilling: 'manual',
      amount: 4_990,
    });
    const eventId = await eventAbout(org.id, 'subscription.created', row.id as string);
    await notified(eventId);
    const [mail, ...more] = await mailsAbout(eventId);
    expect(more).toEqual([]);
    expect(mail!.to).toEqual(org.emails);
    expect(mail!.headers.subject).toBe('New subscription: Course - R$49.90 every month');
    expect(mail!.text).toContain(`Subscription: ${row.id}\n`);

    const [saleRow] = await sql('select id from sales where checkout_id = ?', [checkoutId]);
    const saleEvent = await eventAbout(org.id, 'sale.created', saleRow!.id as string);
    await relayedPast(saleEvent);
    expect(await notificationRows(saleEvent)).toEqual([]);
    expect(await mailsTo(org.emails[0]!)).toHaveLength(1);
  });
});

/** A mailer that refuses every message, as an SMTP server that is down. */
const refusingMailer: Mailer = {
  kind: 'smtp',
  send: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:25')),
};

describe('the notification sender', () => {
  let outbox: string;
  const from = 'Acme Billing <billing@acme.example>';
  const log = () => undefined;
  const mailing = () => ({
    orm: api.orm,
    mailer: openMailer({ mailer: 'outbox', mailFrom: from, MAIL_OUTBOX_DIR: outbox }),
    from,
    publicBaseUrl: api.config.publicBaseUrl,
    log,
  });
  // Jobs these tests queue are due only in 2100, so that the worker's own sender never claims them.
  const T = new Date('2100-01-01T00:00:00Z');
  const later = (ms: number) => new Date(T.getTime() + ms);

  beforeAll(async () => {
    outbox = await mkdtemp(path.join(os.tmpdir(), 'notification-sender-'));
  });
  afterAll(async () => {
    await rm(outbox, { recursive: true, force: true });
  });

  /** A sale of an organization with notifications off (the relay queues nothing), queued here by hand. */
  async function queuedSale(createdAt = T) {
    const org = await organization({ new_sale: false, new_subscription: false }, 2);
    const { eventId } = await sale(org.id, 2_500, 'Guitar course');
    await relayedPast(eventId);
    // The buyer's receipt of the sale (decision 0087), queued due now, sent by the worker before these
    // tests' rounds (which claim whatever is due by 2100) begin.
    const pending = async () =>
      (await sql('select 1 from notification_jobs where next_attempt_at < ? and gave_up_at is null', [T])).length;
    await waitFor(async () => (await pending()) === 0, 30_000, "the worker's due notifications");
    await sql(
      'insert into notification_jobs (event_id, organization_id, next_attempt_at, created_at) values (?, ?, ?, ?)',
      [eventId, org.id, T, createdAt],
    );
    return { org, eventId };
  }

  it('sends once when it runs twice for one event (a second claim after its record)', async () => {
    const { org, eventId } = await queuedSale();
    const messageId = `<notification.${eventId}@acme.example>`;
    const input = { eventId, organizationId: org.id };
    expect(await sendNotification(mailing(), input)).toEqual({ sent: true, messageId, recipients: org.emails });
    expect(await sendNotification(mailing(), input)).toEqual({ sent: false, messageId, recipients: org.emails });
    const mails = await outboxMails(outbox);
    expect(mails.map((m) => [m.headers['message-id'], m.to, m.headers.subject])).toEqual([
      [messageId, org.emails, 'New sale: Guitar course - R$25.00'],
    ]);
    expect(await notificationRows(eventId)).toHaveLength(1);
    expect(await queuedRows(eventId)).toEqual([]);
  });

  it('tries a failed send again 10 s later, then 20 s, and records it once it goes out', async () => {
    const { org, eventId } = await queuedSale();
    const refusing = { ...mailing(), mailer: refusingMailer };
    expect(await sendDueNotifications(refusing, { at: T })).toMatchObject({ failed: 1 });
    let [job] = await queuedRows(eventId);
    expect(job).toMatchObject({ attempts: 1, next_attempt_at: later(10_000), gave_up_at: null });
    expect(job!.last_error).toContain('ECONNREFUSED');
    // Not due before its time.
    expect((await sendDueNotifications(refusing, { at: later(9_999) })).claimed).toBe(0);
    expect(await sendDueNotifications(refusing, { at: later(10_000) })).toMatchObject({ failed: 1 });
    [job] = await queuedRows(eventId);
    expect(job).toMatchObject({ attempts: 2, next_attempt_at: later(30_000) });

    expect(await sendDueNotifications(mailing(), { at: later(30_000) })).toMatchObject({ sent: 1 });
    expect(await queuedRows(eventId)).toEqual([]);
    expect(await notificationRows(eventId)).toMatchObject([{ organization_id: org.id, recipients: org.emails }]);
    expect((await outboxMails(outbox)).filter((m) => m.headers['x-billing-event-id'] === eventId)).toHaveLength(1);
  });

  it('gives up a day after the event', async () => {
    const young = await queuedSale(later(-23 * 3600_000));
    const old = await queuedSale(later(-24 * 3600_000));
    const refusing = { ...mailing(), mailer: refusingMailer };
    await sendDueNotifications(refusing, { at: T });
    expect((await queuedRows(young.eventId))[0]!.gave_up_at).toBeNull();
    expect((await queuedRows(old.eventId))[0]!.gave_up_at).toEqual(T);
    // A given-up notification is never claimed again.
    await sendDueNotifications(mailing(), { at: later(3600_000) });
    expect(await notificationRows(old.eventId)).toEqual([]);
    expect(await notificationRows(young.eventId)).toHaveLength(1);
  });

  it('leaves a claimed notification to another sender only once its lease is over', async () => {
    const { eventId } = await queuedSale();
    let sending!: () => void;
    const called = new Promise<void>((resolve) => (sending = resolve));
    let fail!: (err: Error) => void;
    const hanging: Mailer = {
      kind: 'smtp',
      send: () => {
        sending();
        return new Promise((_, reject) => (fail = reject));
      },
    };
    const first = sendDueNotifications({ ...mailing(), mailer: hanging }, { at: T });
    await called;
    expect((await queuedRows(eventId))[0]).toMatchObject({ attempts: 1, next_attempt_at: later(120_000) });
    expect((await sendDueNotifications(mailing(), { at: later(119_999) })).claimed).toBe(0);
    // The first sender is taken for dead: another claims and sends it.
    expect(await sendDueNotifications(mailing(), { at: later(120_000) })).toMatchObject({ claimed: 1, sent: 1 });
    expect(await notificationRows(eventId)).toHaveLength(1);
    fail(new Error('gone'));
    await first;
  });
});
