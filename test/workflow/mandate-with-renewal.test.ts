import { describe, expect, it } from '@jest/globals';
import { confirmCheckoutUpdate, paymentUpdatedSignal } from '../../contracts/checkout.ts';
import type { PixPayerPersona } from '../../contracts/pix-automatico.ts';
import { renewalAnswerBy } from '../../domain/mandate-requests.ts';
import { mandateRequests } from '../helpers/mandate-requests.ts';
import { waitFor } from '../helpers/processes.ts';
import { APPROVE, DAY, stateOf, useSubscriptionWorkflows, type Handle } from '../helpers/subscription-workflows.ts';

/**
 * Journey 4 (decision 0100): a manual subscription renewed by pix is offered the mandate in its next
 * renewal's pix QR code. The mandate's workflow opens the renewal checkout and creates the mandate with
 * its due-date charge; the buyer confirms the checkout with pix (that charge, shown with the mandate's QR
 * code); the payer pays and, in the same step, accepts or declines the recurrence. Time-skipping server,
 * real activities, database and simulator.
 */
const PREFIX = 'mandate-renewal-test';
const kit = useSubscriptionWorkflows(PREFIX);
const { sql, run, row, subscription } = kit;
const { askForMandate, payerAnswers, outcomeOf } = mandateRequests(kit, PREFIX);
const HOUR = 3_600_000;

/** A manual subscription of R$ 99,00 a month with no card (renewed through its renewal checkout, by pix). */
async function pixSubscription() {
  const s = await subscription(APPROVE, { noCard: true });
  const customerId = (await row(s.id)).customer_id as string;
  await sql(`update customers set tax_id = '{"type":"cpf","number":"12345678909"}'::jsonb where id = ?`, [customerId]);
  const periodEnd = new Date((await row(s.id)).current_period_end).getTime();
  return { ...s, customerId, periodEnd };
}

type PixSubscription = Awaited<ReturnType<typeof pixSubscription>>;

/**
 * Two days before the period ends the merchant asks (with_renewal); the buyer confirms the renewal
 * checkout with pix; an hour after the period's end the payer reads its QR code and answers as `persona`,
 * and the gateway's notice of the paid pix reaches the checkout (twice, as notices may come).
 */
async function renewalPaidWithQrCode(sub: Handle, s: PixSubscription, persona: PixPayerPersona) {
  await kit.env.sleep(s.periodEnd - 2 * DAY - (await kit.env.currentTimeMs()));
  const answerBy = renewalAnswerBy(s.periodEnd, 7);
  const asked = await askForMandate(sub, s, 'with_renewal', Date.parse(answerBy) - (await kit.env.currentTimeMs()));
  expect(asked.created).toMatchObject({
    status: 'created',
    journey: 'journey_4',
    first_payment_id: expect.any(String),
  });
  const [renewal] = await sql(
    `select id, workflow_id, status, amount::int as amount from checkouts where subscription_id = ? and renewal_period = 2`,
    [s.id],
  );
  expect(renewal).toMatchObject({ status: 'open', amount: 9_900 });

  const checkout = kit.env.client.workflow.getHandle(renewal.workflow_id);
  const confirmed = await checkout.executeUpdate(confirmCheckoutUpdate, {
    args: [
      {
        paymentMethod: 'pix',
        card: null,
        installments: 1,
        buyer: { email: null, name: 'Ana Souza', taxId: '12345678909' },
        discountCode: null,
      },
    ],
  });
  // The renewal's pix is the mandate's due-date charge, shown with the QR code that offers the recurrence.
  const data = confirmed.checkout.gateway_payment_data!;
  expect(data.transaction_id).toBe(asked.created.first_payment_id);
  expect(asked.created.qr_code).toBeNull(); // the mandate's row never shows the QR code that pays the renewal
  expect(data.pix?.qr_code).toContain(`rec:${asked.created.gateway_mandate_id}`);

  await kit.env.sleep(s.periodEnd + HOUR - (await kit.env.currentTimeMs()));
  await payerAnswers(asked.handle, asked.created.gateway_mandate_id, persona);
  const notice = { transactionId: data.transaction_id!, status: 'succeeded' };
  await checkout.signal(paymentUpdatedSignal, notice);
  await checkout.signal(paymentUpdatedSignal, notice);
  await waitFor(async () => (await row(s.id)).period_number === 2, { what: 'the renewal recorded', timeoutMs: 30_000 });
  return { asked, renewalId: renewal.id as string };
}

const renewalSales = (checkoutId: string) =>
  sql(`select amount::int as amount, payment_method from sales where checkout_id = ?`, [checkoutId]);

describe('journey 4: the mandate offered in the renewal’s pix QR code', () => {
  it('paid and accepted: the renewal is recorded once, and the next period is charged through the mandate', async () => {
    const s = await pixSubscription();
    const renewalId = await run(s.id, async (sub) => {
      const { asked, renewalId } = await renewalPaidWithQrCode(sub, s, 'approves');
      expect(await outcomeOf(asked.handle)).toBe('approved');
      await waitFor(async () => (await row(s.id)).recurrence_billing === 'pix_automatico', {
        what: 'the subscription to adopt the mandate',
        timeoutMs: 30_000,
      });
      // The period after the renewal: charged through the mandate (its cobr), settled, paid.
      const periodEnd2 = new Date((await row(s.id)).current_period_end).getTime();
      await kit.env.sleep(periodEnd2 + 3 * DAY - (await kit.env.currentTimeMs()));
      expect(await stateOf(sub)).toMatchObject({ billing: 'pix_automatico', periodNumber: 3, status: 'active' });
      return renewalId;
    });
    expect(await renewalSales(renewalId)).toEqual([{ amount: 9_900, payment_method: 'pix' }]);
    expect(await sql('select status, journey from mandates where subscription_id = ?', [s.id])).toEqual([
      { status: 'approved', journey: 'journey_4' },
    ]);
    const charges = await sql(
      'select period, status, amount::int as amount from mandate_charges where subscription_id = ?',
      [s.id],
    );
    expect(charges).toEqual([{ period: 3, status: 'completed', amount: 9_900 }]);
    const sales = await sql(`select amount::int as amount from sales where subscription_id = ? order by created_at`, [
      s.id,
    ]);
    expect(sales).toEqual([{ amount: 9_900 }, { amount: 9_900 }]); // period 2 by the renewal, 3 by the mandate
    expect(await kit.captured(s.id)).toEqual([]); // never a card
  }, 180_000);

  it('paid and declined: the renewal is paid, the mandate rejected (AP14), the subscription stays manual', async () => {
    const s = await pixSubscription();
    const renewalId = await run(s.id, async (sub) => {
      const { asked, renewalId } = await renewalPaidWithQrCode(sub, s, 'rejects_authorization');
      expect(await outcomeOf(asked.handle)).toBe('rejected');
      expect(await stateOf(sub)).toMatchObject({ billing: 'manual', periodNumber: 2, status: 'active' });
      return renewalId;
    });
    expect(await renewalSales(renewalId)).toEqual([{ amount: 9_900, payment_method: 'pix' }]);
    expect((await row(s.id)).recurrence_billing).toBe('manual');
    expect(await sql('select status, journey, rejection_code from mandates where subscription_id = ?', [s.id])).toEqual(
      [{ status: 'rejected', journey: 'journey_4', rejection_code: 'AP14' }],
    );
  }, 180_000);
});
