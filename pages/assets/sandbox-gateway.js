// The simulated gateway's browser script: the part of MercadoPago.js v2 the hosted checkout uses
// (`new MercadoPago(publicKey, options)`, Secure Fields: `mp.fields.create(type, options).mount(id)`,
// `field.on(event, callback)` and `mp.fields.createCardToken(…)`, of typed card data or of a kept card's
// `cardId` with its security code, and the BIN look-ups
// `getPaymentMethods({ bin })` and `getInstallments({ amount, bin, paymentTypeId })`), answered by the
// sandbox's own endpoints instead of Mercado Pago's, so that the page runs one code path in both.
// Like Mercado Pago's, each card field is an input inside a frame of its own: the page's document
// holds none of them, and a form post cannot carry them.
'use strict';

(function () {
  const ENDPOINT = '/sandbox-gateway/v1';
  // Each field's input: what it takes, and how long it may be.
  const KINDS = {
    cardNumber: { maxlength: 23, autocomplete: 'cc-number', valid: (v) => /^\d{12,19}$/.test(digits(v)) },
    expirationDate: { maxlength: 7, autocomplete: 'cc-exp', valid: (v) => /^\d{1,2}\/(\d{2}|\d{4})$/.test(v.trim()) },
    securityCode: { maxlength: 4, autocomplete: 'cc-csc', valid: (v) => /^\d{3,4}$/.test(v.trim()) },
  };
  const digits = (value) => value.replace(/[\s-]/g, '');
  // The number in the groups printed on the card, as typed: 4-6-5 for an American Express (34, 37), else fours.
  function grouped(value) {
    const d = value.replace(/\D/g, '').slice(0, 19);
    const cuts = /^3[47]/.test(d) ? [4, 10] : [4, 8, 12, 16];
    return [0, ...cuts]
      .map((cut, i) => d.slice(cut, cuts[i]))
      .filter(Boolean)
      .join(' ');
  }

  async function call(path, init) {
    const response = await fetch(`${ENDPOINT}${path}`, init);
    const body = await response.json().catch(() => null);
    if (!response.ok) throw new Error((body && body.error) || `HTTP ${response.status}`, { cause: body });
    return body;
  }

  class Field {
    constructor(type, options) {
      if (!KINDS[type]) throw new Error(`Unknown field type ${type}`);
      this.type = type;
      this.options = options || {};
      this.listeners = {};
      this.input = null;
      this.bin = null;
    }

    on(event, callback) {
      (this.listeners[event] = this.listeners[event] || []).push(callback);
      return this;
    }

    emit(event, detail) {
      for (const callback of this.listeners[event] || []) callback({ field: this.type, ...detail });
    }

    // A frame of the page's own origin (about:srcdoc) holding the one input, styled by our stylesheet.
    mount(containerId) {
      const container = document.getElementById(containerId);
      const frame = document.createElement('iframe');
      const kind = KINDS[this.type];
      const stylesheet = document.querySelector('link[rel="stylesheet"]');
      frame.title = this.options.srLabel || this.type;
      frame.className = 'secure-field-frame';
      frame.setAttribute('data-secure-field', this.type);
      frame.srcdoc =
        '<!doctype html><html><head>' +
        (stylesheet ? `<link rel="stylesheet" href="${stylesheet.href}">` : '') +
        '</head><body class="secure-field-body"><input type="text" inputmode="numeric" spellcheck="false"></body></html>';
      frame.addEventListener('load', () => {
        const input = frame.contentDocument.querySelector('input');
        input.maxLength = kind.maxlength;
        input.autocomplete = kind.autocomplete;
        if (this.options.placeholder) input.placeholder = this.options.placeholder;
        if (this.options.srLabel) input.setAttribute('aria-label', this.options.srLabel);
        input.addEventListener('input', () => {
          if (this.type === 'cardNumber') input.value = grouped(input.value);
          this.changed();
        });
        input.addEventListener('focus', () => this.emit('focus'));
        input.addEventListener('blur', () => this.emit('blur'));
        this.input = input;
        this.emit('ready');
      });
      container.replaceChildren(frame);
      return this;
    }

    unmount() {
      this.input = null;
    }

    value() {
      return this.input ? this.input.value : '';
    }

    changed() {
      const value = this.value();
      this.emit('change');
      const valid = KINDS[this.type].valid(value);
      const cause = value.trim() === '' ? 'empty' : 'invalid_value';
      this.emit('validityChange', { errorMessages: valid ? [] : [{ message: `${this.type} is not valid`, cause }] });
      if (this.type !== 'cardNumber') return;
      // Mercado Pago's binChange: the first 8 digits once there are enough of them, null before.
      const number = digits(value);
      const bin = /^\d{8,}$/.test(number) ? number.slice(0, 8) : null;
      if (bin !== this.bin) {
        this.bin = bin;
        this.emit('binChange', { bin });
      }
    }
  }

  class Fields {
    constructor(publicKey) {
      this.publicKey = publicKey;
      this.created = {};
    }

    create(type, options) {
      const field = new Field(type, options);
      this.created[type] = field;
      return field;
    }

    // Resolves to Mercado Pago's card token shape ({ id, first_six_digits, last_four_digits, … }) from
    // the mounted fields and the non-PCI data given here; rejects with the endpoint's error body as `cause`.
    // With `cardId` (a card kept with a customer), the token is minted from that card and the mounted
    // security code field only, as Mercado Pago's saved-cards guide does (decision 0078).
    async createCardToken(data) {
      const read = (type) => (this.created[type] ? this.created[type].value().trim() : '');
      if (data.cardId) {
        return call(`/card_tokens?public_key=${encodeURIComponent(this.publicKey)}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ card_id: String(data.cardId), security_code: read('securityCode') }),
        });
      }
      const [month, year] = read('expirationDate').split('/');
      const identification =
        data.identificationType && data.identificationNumber
          ? { type: data.identificationType, number: data.identificationNumber }
          : undefined;
      return call(`/card_tokens?public_key=${encodeURIComponent(this.publicKey)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          card_number: digits(read('cardNumber')),
          expiration_month: Number(month),
          expiration_year: year && year.length === 2 ? 2000 + Number(year) : Number(year),
          security_code: read('securityCode'),
          cardholder: { name: String(data.cardholderName || ''), identification },
        }),
      });
    }
  }

  class MercadoPago {
    constructor(publicKey, options) {
      this.publicKey = publicKey;
      this.options = options || {};
      this.fields = new Fields(publicKey);
    }

    // { results: [{ id, payment_type_id, issuer: { id, name } }] }
    getPaymentMethods({ bin }) {
      const query = new window.URLSearchParams({ public_key: this.publicKey, bins: bin });
      return call(`/payment_methods/search?${query}`, { headers: { accept: 'application/json' } });
    }

    // [{ payment_method_id, issuer, payer_costs: [{ installments, installment_rate, installment_amount, total_amount }] }]
    getInstallments({ amount, bin, paymentTypeId }) {
      const query = new window.URLSearchParams({ public_key: this.publicKey, amount: String(amount), bin });
      if (paymentTypeId) query.set('payment_type_id', paymentTypeId);
      return call(`/payment_methods/installments?${query}`, { headers: { accept: 'application/json' } });
    }
  }

  window.MercadoPago = MercadoPago;
})();
