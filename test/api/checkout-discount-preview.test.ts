import { describe, expect, it } from '@jest/globals';
import { useApi, type TestApi } from '../helpers/api.ts';
import { makeTenant, unique } from '../helpers/fixtures.ts';

/**
 * The hosted checkout's discount preview (`POST /checkout/c/<secret>/preview`) applies a code by the
 * rule its confirmation applies (issue 34 §1): a code whose uses are all taken is refused there, in the
 * buyer's language by its own error code, not shown as applied to be refused at payment.
 */
let api: TestApi;
useApi((started) => ({ api } = started));

const page = { accept: 'text/html', 'accept-language': 'pt-BR', 'content-type': 'application/x-www-form-urlencoded' };

async function shop() {
  const t = await makeTenant(api.orm);
  const product = await api.call('POST', '/api/v1/products/', {
    token: t.oat,
    body: {
      organization_id: t.org.id,
      name: unique('Curso'),
      prices: [{ type: 'one_time', currency: 'brl', unit_amount: 10_000 }],
    },
  });
  expect(product.status).toBe(201);
  const checkout = async (body: Record<string, unknown> = {}) => {
    const created = await api.call('POST', '/api/v1/checkouts/', {
      token: t.oat,
      body: { product_id: product.body.id, ...body },
    });
    expect(created.status).toBe(201);
    return created.body as { id: string; client_secret: string };
  };
  const discount = async (code: string, maxRedemptions: number) => {
    const created = await api.call('POST', '/api/v1/discounts/', {
      token: t.oat,
      body: {
        name: code,
        code,
        type: 'percentage',
        basis_points: 1000,
        duration: 'once',
        max_redemptions: maxRedemptions,
      },
    });
    expect(created.status).toBe(201);
    return created.body as { id: string };
  };
  return { checkout, discount };
}

const preview = (secret: string, code: string) =>
  api.call('POST', `/checkout/c/${secret}/preview`, {
    headers: page,
    raw: new URLSearchParams({ discount_code: code, payment_method: 'pix' }).toString(),
  });

describe('the discount preview of the hosted checkout', () => {
  it('refuses a code whose uses are all taken, in Portuguese by its code, and applies one with uses left', async () => {
    const { checkout, discount } = await shop();
    const usedUp = unique('USADO').toUpperCase();
    const once = await discount(usedUp, 1);
    // Its one use taken by another buyer's checkout.
    await checkout({ discount_id: once.id });
    const buyer = await checkout();

    const refused = await preview(buyer.client_secret, usedUp);
    expect(refused.status).toBe(422);
    expect(refused.body).toContain('Cupom não aplicado');
    expect(refused.body).toContain('Este cupom já foi usado o número máximo de vezes.');
    expect(refused.body).not.toContain(`Cupom ${usedUp} aplicado.`);
    expect(refused.body).toMatch(/data-testid="total" data-total="true">R\$\s100,00</);

    const open = unique('DEZ').toUpperCase();
    await discount(open, 5);
    const applied = await preview(buyer.client_secret, open);
    expect(applied.status).toBe(200);
    expect(applied.body).toContain(`Cupom ${open} aplicado.`);
    expect(applied.body).toMatch(/data-testid="total" data-total="true">R\$\s90,00</);
  });
});
