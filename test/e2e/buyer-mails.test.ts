import { describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { sendNotification } from '../../activities/notifications.ts';
import { openMailer } from '../../mailer/index.ts';
import { useApi, type TestApi } from '../helpers/api.ts';
import { makeCheckout } from '../helpers/checkouts.ts';
import { TEST_MAIL_OUTBOX_DIR } from '../helpers/env.ts';
import { makeMember, makeTenant, unique } from '../helpers/fixtures.ts';
import { outboxMails, type ReadMail } from '../helpers/mail.ts';
import { multipart, png } from '../helpers/uploads.ts';
import { waitFor } from './stack.ts';

/**
 * The buyer's mails (decision 0087) end to end: a checkout paid through the real API, the test run's
 * worker (its relay queues the mails, its sender writes them into the run's outbox) and the simulator.
 */
let api: TestApi;
let temporal: Client;
useApi((stack) => ({ api, temporal } = stack));

const sql = (text: string, params: unknown[] = []) =>
  api.orm.em.getConnection().execute<Record<string, any>[]>(text, params);

const confirm = (clientSecret: string, body: Record<string, unknown>) =>
  api.call('POST', `/api/v1/checkouts/client/${clientSecret}/confirm-sdk`, { body });

const card = (installments: number) => ({
  number: '4111111111111111',
  holder_name: 'Ana Souza',
  expiration_month: '12',
  expiration_year: '2031',
  cvv: '123',
  installments,
});

/** The mails to `email` whose Message-ID starts with `kind`, once there are `count` of them. */
async function mailsTo(email: string, kind: string, count = 1): Promise<ReadMail[]> {
  const find = async () =>
    (await outboxMails(TEST_MAIL_OUTBOX_DIR)).filter(
      (m) => m.to.includes(email) && m.headers['message-id']!.startsWith(`<${kind}.`),
    );
  await waitFor(async () => (await find()).length >= count, 30_000, `${kind} mail to ${email}`);
  return find();
}

/** A checkout of R$ 899,00 of "Curso de violão" whose organization has a member; the buyer's address. */
async function checkout() {
  const email = `${unique('buyer')}@example.com`;
  const c = await makeCheckout(api.orm, temporal, { amount: 89_900, productName: 'Curso de violão', email });
  const member = `${unique('member')}@example.com`;
  await makeMember(api.orm, c.organizationId, member, 'owner');
  const [org] = await sql('select name from organizations where id = ?', [c.organizationId]);
  return { ...c, email, member, organizationName: org!.name as string };
}

describe('the buyer receipt', () => {
  it('tells a card paid in 12 instalments: each, the count and the total with interest the sale recorded', async () => {
    const c = await checkout();
    expect((await confirm(c.clientSecret, { payment_method: 'credit_card', card: card(12) })).status).toBe(200);
    const [mail, ...more] = await mailsTo(c.email, 'receipt');
    expect(more).toEqual([]);
    const [sale] = await sql(
      'select s.id, t.amount as charged from sales s join transactions t on t.id = s.transaction_id where s.checkout_id = ?',
      [c.id],
    );
    // The observed figure: R$ 899,00 in 12 instalments is charged R$ 1.083,12 (12 × R$ 90,26).
    expect(Number(sale!.charged)).toBe(108_312);
    expect(mail!.text).toContain('Pago: R$ 1.083,12 no cartão de crédito em 12x de R$ 90,26 (total com juros)\n');
    expect(mail!.text).toContain(`Recebemos o seu pagamento a ${c.organizationName}.`);
    expect(mail!.text).toContain('Produto: Curso de violão\n');
    expect(mail!.text).toContain(`Pedido: ${sale!.id}`);

    // The members' notification of the same sale shows the interest too.
    const toMember = async () => (await outboxMails(TEST_MAIL_OUTBOX_DIR)).filter((m) => m.to.includes(c.member));
    await waitFor(async () => (await toMember()).length === 1, 30_000, 'member notification');
    const [notice] = await toMember();
    expect(notice!.text).toContain('Installments: 12 x R$90.26 = R$1,083.12 charged (interest included)\n');
  });

  it('is sent once however often its delivery runs, with one Message-ID of its event', async () => {
    const c = await checkout();
    expect((await confirm(c.clientSecret, { payment_method: 'credit_card', card: card(1) })).status).toBe(200);
    const [mail] = await mailsTo(c.email, 'receipt');
    const [event] = await sql(
      `select e.id from events e join sales s on s.id::text = e.data ->> 'id' where e.type = 'sale.paid' and s.checkout_id = ?`,
      [c.id],
    );
    const eventId = event!.id as string;
    expect(mail!.headers['message-id']).toBe(`<receipt.${eventId}@localhost>`);
    expect(mail!.text).toContain('Pago: R$ 899,00 (cartão de crédito)\n');

    const deps = {
      orm: api.orm,
      mailer: openMailer({ mailer: 'outbox', mailFrom: 'billing@localhost', MAIL_OUTBOX_DIR: TEST_MAIL_OUTBOX_DIR }),
      from: 'billing@localhost',
      publicBaseUrl: api.config.publicBaseUrl,
      log: () => undefined,
    };
    // A second delivery of the same event (a retried activity, a second claim): nothing more is mailed.
    const again = await sendNotification(deps, { eventId, organizationId: c.organizationId });
    expect(again).toMatchObject({ sent: false, messageId: `<receipt.${eventId}@localhost>` });
    expect(await mailsTo(c.email, 'receipt')).toHaveLength(1);
    expect(await sql('select recipients from notifications where event_id = ?', [eventId])).toEqual([
      { recipients: [c.email] },
    ]);
  });
});

describe('the payment instructions', () => {
  it('mails a pix buyer the copy-and-paste code and its expiry before payment', async () => {
    const c = await checkout();
    expect((await confirm(c.clientSecret, { payment_method: 'pix' })).status).toBe(200);
    const [mail] = await mailsTo(c.email, 'payment');
    const [row] = await sql('select gateway_payment_data as d from checkouts where id = ?', [c.id]);
    const code = row!.d.pix.qr_code as string;
    expect(code.length).toBeGreaterThan(20);
    expect(mail!.text).toContain(`\n${code}\n`);
    expect(mail!.text).toContain('Para pagar R$ 899,00 com Pix');
    expect(mail!.text).toMatch(/O código vale até \d\d\/\d\d\/\d{4},? \d\d:\d\d\./);
    expect(await sql('select id from sales where checkout_id = ?', [c.id])).toEqual([]);
    // A seller without a brand: the HTML part in the neutral colour (white on it), with no image to load.
    expect(mail!.html).toContain(`${code}</p>`);
    expect(mail!.html).toContain('background:#0b5cad;');
    expect(mail!.html).toContain('color:#ffffff;');
    expect(mail!.html).not.toContain('<img');
  });

  it('mails a boleto buyer the digitable line, barcode and due date', async () => {
    const c = await checkout();
    const body = { payment_method: 'boleto', customer_name: 'Ana Souza', customer_tax_id: '529.982.247-25' };
    expect((await confirm(c.clientSecret, body)).status).toBe(200);
    const [mail] = await mailsTo(c.email, 'payment');
    const [row] = await sql('select gateway_payment_data as d from checkouts where id = ?', [c.id]);
    const boleto = row!.d.boleto as { digitable_line: string; barcode: string; due_date: string };
    expect(mail!.text).toContain(`\n${boleto.digitable_line}\n`);
    expect(mail!.text).toContain(`Código de barras: ${boleto.barcode}\n`);
    const [y, m, d] = boleto.due_date.slice(0, 10).split('-');
    expect(mail!.text).toContain(`Vencimento: ${d}/${m}/${y}\n`);
    expect(mail!.text).toContain('Olá, Ana Souza.');
  });
});

describe('the HTML part under the seller’s brand (decision 0094)', () => {
  const NAVY = '#1a237e';

  it('shows the logo (served by a lasting URL), the colour and the name, escapes what it quotes, and leaves the text as it was', async () => {
    const tenant = await makeTenant(api.orm);
    const logo = png(64, 24);
    const upload = multipart({ filename: 'logo.png', type: 'image/png', data: logo });
    const file = await api.call('POST', '/api/v1/files/?purpose=product_media', {
      token: tenant.oat,
      raw: upload.raw,
      headers: upload.headers,
    });
    expect(file.status).toBe(201);
    const name = 'Cerâmica <Aurora> & "Cia"';
    const patched = await api.call('PATCH', `/api/v1/organizations/${tenant.org.id}`, {
      token: tenant.oat,
      body: { name, profile_settings: { brand_color: NAVY, logo_file_id: file.body.id } },
    });
    expect(patched.status).toBe(200);
    const email = `${unique('buyer')}@example.com`;
    const c = await makeCheckout(api.orm, temporal, {
      organizationId: tenant.org.id,
      amount: 89_900,
      productName: '<b>x</b>',
      email,
    });
    expect((await confirm(c.clientSecret, { payment_method: 'credit_card', card: card(1) })).status).toBe(200);
    const [mail] = await mailsTo(email, 'receipt');
    const [sale] = await sql('select id from sales where checkout_id = ?', [c.id]);

    // The text part says what it said before, the product's name as the merchant wrote it.
    const lines = mail!.text.split('\n');
    expect(lines.find((l) => l.startsWith('Data: '))).toMatch(/^Data: \d\d\/\d\d\/\d{4},? \d\d:\d\d$/);
    expect(lines.filter((l) => !l.startsWith('Data: '))).toEqual([
      'Olá.',
      '',
      `Recebemos o seu pagamento a ${name}.`,
      '',
      'Produto: <b>x</b>',
      'Pago: R$ 899,00 (cartão de crédito)',
      `Pedido: ${String(sale!.id)}`,
      '',
    ]);

    const html = mail!.html!;
    expect(html).toContain('<html lang="pt-BR">');
    // The header bar in the brand's colour, its name in the ink domain/branding.ts picks (white on navy).
    expect(html).toContain(`background:${NAVY};`);
    expect(html).toContain(
      'color:#ffffff;font-size:20px;font-weight:bold;">Cerâmica &lt;Aurora&gt; &amp; &quot;Cia&quot;</td>',
    );
    expect(html).toContain(
      '<h1 style="margin:0 0 16px;font-size:22px;line-height:1.3;color:#111827;">Recibo da sua compra</h1>',
    );
    expect(html).toContain('>&lt;b&gt;x&lt;/b&gt;</td>');
    expect(html).not.toContain('<b>');
    expect(html).toContain(`>${String(sale!.id)}</td>`);

    // The logo: an absolute https URL of ours that outlives any signed one, sending to the file's bytes now.
    const src = /<img src="([^"]+)" alt=""/.exec(html)?.[1];
    expect(src).toMatch(new RegExp(`^https://[^/]+/brand/logos/${tenant.org.id}$`));
    const redirect = await api.call('GET', new URL(src!).pathname);
    expect(redirect.status).toBe(302);
    const signed = new URL(String(redirect.headers.location));
    const image = await api.call('GET', signed.pathname + signed.search);
    expect(image.status).toBe(200);
    expect(image.headers['content-type']).toBe('image/png');
    expect(Number(image.headers['content-length'])).toBe(logo.length);
  });

  it('has no logo to send to for a seller without one, or an organization that is not', async () => {
    const c = await checkout();
    expect((await api.call('GET', `/brand/logos/${c.organizationId}`)).status).toBe(404);
    expect((await api.call('GET', '/brand/logos/0190c0de-0000-7000-8000-000000000000')).status).toBe(404);
    expect((await api.call('GET', '/brand/logos/not-an-id')).status).toBe(404);
  });
});
