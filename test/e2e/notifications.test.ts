import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createNotificationActivities } from '../../activities/notifications.ts';
import { notificationWorkflowId } from '../../domain/notifications.ts';
import { openMailer } from '../../mailer/index.ts';
import { useApi, type TestApi } from '../helpers/api.ts';
import { makeCheckout } from '../helpers/checkouts.ts';
import { TEST_MAIL_OUTBOX_DIR } from '../helpers/env.ts';
import { makeMember, makeOrganization, unique } from '../helpers/fixtures.ts';
import { outboxMails } from '../helpers/mail.ts';
import { paidSubscription, payByCard } from '../helpers/subscriptions.ts';
import { waitFor } from './stack.ts';

/**
 * Notifications end to end: the real API, the test run's worker process (its relay starts the
 * notification workflows, its webhook queue runs them) and the worker's outbox mailer, whose folder
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

/** Waits until the relay's cursor is past the event: every workflow it would start for it is started. */
async function relayedPast(eventId: string): Promise<void> {
  const passed = async () =>
    (
      await sql(
        'select (r.tx, r.seq) >= (e.tx, e.seq) as passed from webhook_relay r cross join events e where e.id = ?',
        [eventId],
      )
    )[0]!.passed === true;
  await waitFor(passed, 30_000, `the relay to pass ${eventId}`);
}

const mailsAbout = async (eventId: string) =>
  (await outboxMails(TEST_MAIL_OUTBOX_DIR)).filter((m) => m.headers['x-billing-event-id'] === eventId);
const mailsTo = async (email: string) => (await outboxMails(TEST_MAIL_OUTBOX_DIR)).filter((m) => m.to.includes(email));

async function expectNoNotification(eventId: string, recipients: string[]) {
  await relayedPast(eventId);
  await expect(temporal.workflow.getHandle(notificationWorkflowId(eventId)).describe()).rejects.toThrow(
    WorkflowNotFoundError,
  );
  expect(await notificationRows(eventId)).toEqual([]);
  for (const email of recipients) expect(await mailsTo(email)).toEqual([]);
}

describe('new_sale', () => {
  it('mails each member of an organization with it on once per sale, with the product, amount and customer', async () => {
    const on = await organization({ new_sale: true, new_subscription: false }, 2);
    const { buyer, eventId } = await sale(on.id, 12_345, 'Guitar course');
    const record = await notified(eventId);
    const outcome = await temporal.workflow.getHandle(notificationWorkflowId(eventId)).result();
    expect(outcome).toMatchObject({ sent: true, recipients: on.emails });

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

describe('the notification activity', () => {
  let outbox: string;
  beforeAll(async () => {
    outbox = await mkdtemp(path.join(os.tmpdir(), 'notification-activity-'));
  });
  afterAll(async () => {
    await rm(outbox, { recursive: true, force: true });
  });

  it('sends once when it runs twice for one event (a retry after its record)', async () => {
    // An organization with new_sale off: the relay starts nothing for its sale, so only this test sends it.
    const org = await organization({ new_sale: false, new_subscription: false }, 2);
    const { eventId } = await sale(org.id, 2_500, 'Guitar course');
    await relayedPast(eventId);
    const from = 'Acme Billing <billing@acme.example>';
    const mailer = openMailer({ mailer: 'outbox', mailFrom: from, MAIL_OUTBOX_DIR: outbox });
    const { sendNotification } = createNotificationActivities({ orm: api.orm, mailer, from });
    const run = () => new MockActivityEnvironment().run(sendNotification, { eventId, organizationId: org.id });

    const messageId = `<notification.${eventId}@acme.example>`;
    expect(await run()).toEqual({ sent: true, messageId, recipients: org.emails });
    expect(await run()).toEqual({ sent: false, messageId, recipients: org.emails });
    const mails = await outboxMails(outbox);
    expect(mails.map((m) => [m.headers['message-id'], m.to, m.headers.subject])).toEqual([
      [messageId, org.emails, 'New sale: Guitar course - R$25.00'],
    ]);
    expect(await notificationRows(eventId)).toHaveLength(1);
  });
});
