import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import type { TestApi } from '../helpers/api.ts';
import { hostedCheckoutBed, type HostedCheckoutBed } from '../helpers/hosted-checkout-bed.ts';
import { newContext, pageChecked } from '../helpers/browser.ts';
import { cspDirectives, openCheckout } from '../helpers/checkout-page.ts';
import { CHALLENGE_URL } from '../helpers/mercadopago-fake.ts';
import type { ShopSite } from '../helpers/shop-site.ts';

/**
 * A card payment waiting on the buyer's 3-D Secure challenge (Mercado Pago's pending_challenge): the
 * checkout's page shows the issuer's challenge in a frame, opened by posting `creq` to it, and once
 * the frame says it is over, waits for the payment's result. The checkout is put in that state in the
 * database (the gateway's answer as the checkout workflow records it); the issuer's page, which
 * cannot load offline, is answered by a stand-in that records the post and says COMPLETE.
 */
const bed = hostedCheckoutBed();
let api: TestApi;
let browser: Browser;
let shop: ShopSite;
let tenant: HostedCheckoutBed['tenant'];
beforeAll(() => {
  ({ api, browser, shop, tenant } = bed);
});

const sql = <T = any>(text: string, params: unknown[] = []) => api.orm.em.getConnection().execute<T[]>(text, params);
const CREQ = 'eyJ0aHJlZURTU2VydmVyVHJhbnNJRCI6ImZha2UifQ';

/** The issuer's challenge page: a button that tells the checkout's page the challenge is over. */
const ISSUER_PAGE = `<!doctype html><title>Banco emissor</title>
<button id="ok">Confirmar compra</button>
<script>document.getElementById('ok').onclick = () => parent.postMessage({ status: 'COMPLETE' }, '*');</script>`;

describe('a card payment waiting on a 3-D Secure challenge', () => {
  it("shows the issuer's challenge in a frame, then waits for the result and goes on when it is approved", async () => {
    const checkout = await openCheckout(api, tenant.oat, tenant.org.id, { successUrl: `${shop.origin}/obrigado` });
    await sql(
      `update checkouts set status = 'confirmed', payment_method = 'credit_card', gateway_payment_data = ? where id = ?`,
      [
        JSON.stringify({
          transaction_id: '7000000123',
          status: 'pending',
          authorization_code: null,
          installments: 1,
          three_ds: { url: CHALLENGE_URL, creq: CREQ },
        }),
        checkout.id,
      ],
    );
    const context = await newContext(browser);
    const challengePosts: string[] = [];
    await context.route(CHALLENGE_URL, (route) => {
      challengePosts.push(route.request().postData() ?? '');
      return route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: ISSUER_PAGE });
    });
    const page = await context.newPage();
    const response = await page.goto(api.baseUrl + checkout.path);
    // The page may frame the issuer's origin, and that one only.
    expect(cspDirectives(response!.headers()['content-security-policy'])['frame-src']).toBe(
      new URL(CHALLENGE_URL).origin,
    );
    await page.getByRole('heading', { name: 'Confirme a compra com o seu banco' }).waitFor();
    const issuer = page.frameLocator('iframe[title="Confirmação do banco emissor"]');
    await issuer.getByRole('button', { name: 'Confirmar compra' }).waitFor();
    expect(challengePosts).toEqual([new URLSearchParams({ creq: CREQ }).toString()]);
    await pageChecked(page, 'checkout-3ds-challenge');

    // The buyer confirms at the bank: the frame goes, the page waits for the payment.
    await issuer.getByRole('button', { name: 'Confirmar compra' }).click();
    await page.getByText('Processando o pagamento…').waitFor();
    expect(await page.locator('iframe[title="Confirmação do banco emissor"]').isHidden()).toBe(true);

    // Mercado Pago approves it (the checkout workflow records it): the page sends the buyer on.
    await sql(`update checkouts set status = 'succeeded' where id = ?`, [checkout.id]);
    await page.waitForURL(`${shop.origin}/obrigado`);
    await context.close();
  });

  it('a challenge page that is not https is not framed (the CSP names no such origin)', async () => {
    const checkout = await openCheckout(api, tenant.oat, tenant.org.id);
    await sql(
      `update checkouts set status = 'confirmed', payment_method = 'credit_card', gateway_payment_data = ? where id = ?`,
      [
        JSON.stringify({
          transaction_id: '7000000124',
          status: 'pending',
          authorization_code: null,
          installments: 1,
          three_ds: { url: 'http://acs.issuer.example/challenge', creq: CREQ },
        }),
        checkout.id,
      ],
    );
    const res = await api.call('GET', checkout.path);
    expect(cspDirectives(res.headers['content-security-policy'] as string)['frame-src']).toBeUndefined();
    expect(res.body).not.toContain('data-challenge-form');
    expect(res.body).toContain('Processando o pagamento');
  });
});
