// The simulated gateway's browser script: the part of MercadoPago.js v2 the hosted checkout uses
// (`new MercadoPago(publicKey, options)` and `createCardToken(fields)`), tokenizing at the sandbox's
// own endpoint instead of Mercado Pago's, so that the page runs one code path in both.
'use strict';

(function () {
  class MercadoPago {
    constructor(publicKey, options) {
      this.publicKey = publicKey;
      this.options = options || {};
    }

    // Resolves to Mercado Pago's card token shape ({ id, first_six_digits, last_four_digits, … });
    // rejects with the endpoint's error body as `cause`.
    async createCardToken(fields) {
      const identification =
        fields.identificationType && fields.identificationNumber
          ? { type: fields.identificationType, number: fields.identificationNumber }
          : undefined;
      const response = await fetch(`/sandbox-gateway/v1/card_tokens?public_key=${encodeURIComponent(this.publicKey)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          card_number: String(fields.cardNumber || ''),
          expiration_month: Number(fields.cardExpirationMonth),
          expiration_year: Number(fields.cardExpirationYear),
          security_code: String(fields.securityCode || ''),
          cardholder: { name: String(fields.cardholderName || ''), identification },
        }),
      });
      const body = await response.json().catch(() => null);
      if (!response.ok) throw new Error((body && body.error) || `HTTP ${response.status}`, { cause: body });
      return body;
    }
  }

  window.MercadoPago = MercadoPago;
})();
