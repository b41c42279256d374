// The hosted checkout's script (no framework): shows the chosen method's fields, tokenizes the card
// with the gateway's browser script before the post, copies codes, counts a pix down, and follows a
// pending payment until it lands.
'use strict';

(function () {
  // The card inputs, by their data-card handle (card-fields.ts).
  const CARD = ['number', 'name', 'exp_month', 'exp_year', 'csc'];

  for (const form of document.querySelectorAll('[data-payment-form]')) paymentForm(form);

  function paymentForm(form) {
    const panels = form.querySelectorAll('[data-method]');
    const show = () => {
      const chosen = form.querySelector('[data-method-choice]:checked');
      for (const panel of panels) {
        const on = chosen !== null && panel.getAttribute('data-method') === chosen.value;
        panel.hidden = !on;
        // A hidden method's fields are neither validated nor sent.
        panel.disabled = !on;
      }
    };
    form.addEventListener('change', (event) => {
      if (event.target.matches('[data-method-choice]')) show();
    });
    show();
    const card = cardTokenizer(form);
    // One submission at a time: a second press while the first is on its way would only be refused.
    form.addEventListener('submit', (event) => {
      if (form.dataset.submitting) return event.preventDefault();
      busy(form, true);
      if (!card || new FormData(form).get('payment_method') !== 'credit_card') return;
      // The card goes to the gateway's script first; the post carries only its token.
      event.preventDefault();
      card.tokenize().then(
        () => form.submit(),
        (message) => {
          card.fail(message);
          busy(form, false);
        },
      );
    });
  }

  function busy(form, on) {
    if (on) form.dataset.submitting = 'true';
    else delete form.dataset.submitting;
    for (const button of form.querySelectorAll('button[type="submit"]')) {
      if (on) button.setAttribute('aria-busy', 'true');
      else button.removeAttribute('aria-busy');
    }
  }

  // The card's tokenization with the page's gateway script, which defines MercadoPago.js' interface
  // (MercadoPago.js itself, or the sandbox's sandbox-gateway.js); null when the form takes no card.
  function cardTokenizer(form) {
    const fields = form.querySelector('[data-card-fields]');
    if (!fields || !fields.dataset.publicKey) return null;
    const tokenField = fields.querySelector('[data-card-token]');
    const errorBox = fields.querySelector('[data-card-error]');
    const input = (handle) => fields.querySelector(`[data-card="${handle}"]`);
    const label = (element) => form.querySelector(`label[for="${element.id}"]`).textContent.trim();

    async function tokenize() {
      errorBox.hidden = true;
      errorBox.textContent = '';
      tokenField.value = '';
      if (typeof window.MercadoPago !== 'function') throw fields.dataset.unloadedText;
      const value = Object.fromEntries(CARD.map((handle) => [handle, input(handle).value.trim()]));
      const missing = CARD.filter((handle) => !value[handle]).map((handle) => label(input(handle)));
      if (missing.length > 0) throw `${fields.dataset.missingText} ${missing.join(', ')}.`;
      const taxId = form.elements.namedItem('tax_id');
      // The buyer's CPF or CNPJ, when the form has it: Mercado Pago takes it as the holder's document.
      const taxDigits = taxId ? taxId.value.replace(/\D/g, '') : '';
      const taxIdType = { 11: 'CPF', 14: 'CNPJ' }[taxDigits.length];
      const mp = new window.MercadoPago(fields.dataset.publicKey, {
        locale: document.documentElement.lang === 'en' ? 'en-US' : 'pt-BR',
        // Usage metrics only: nothing the buyer needs, and an origin the page's CSP does not name.
        trackingDisabled: true,
      });
      let token;
      try {
        token = await mp.createCardToken({
          cardNumber: value.number.replace(/[\s-]/g, ''),
          cardholderName: value.name,
          cardExpirationMonth: value.exp_month.padStart(2, '0'),
          cardExpirationYear: value.exp_year.length === 2 ? `20${value.exp_year}` : value.exp_year,
          securityCode: value.csc,
          ...(taxIdType ? { identificationType: taxIdType, identificationNumber: taxDigits } : {}),
        });
      } catch {
        throw fields.dataset.failedText;
      }
      if (!token || !token.id) throw fields.dataset.failedText;
      tokenField.value = token.id;
      // Where the inputs are named (the no-JavaScript fallback), they lose their names: only the token is posted.
      for (const handle of CARD) input(handle).removeAttribute('name');
    }

    function fail(message) {
      errorBox.textContent = typeof message === 'string' ? message : fields.dataset.failedText;
      errorBox.hidden = false;
    }

    return { tokenize, fail };
  }

  for (const button of document.querySelectorAll('[data-copy]')) {
    button.addEventListener('click', async () => {
      const field = document.getElementById(button.getAttribute('data-copy'));
      try {
        await navigator.clipboard.writeText(field.value);
      } catch {
        field.select();
        document.execCommand('copy');
      }
      const label = button.textContent;
      button.textContent = button.getAttribute('data-copied-label');
      setTimeout(() => (button.textContent = label), 2000);
    });
  }

  for (const clock of document.querySelectorAll('[data-countdown]')) {
    const ends = Date.parse(clock.getAttribute('datetime'));
    const tick = () => {
      const left = Math.max(0, Math.floor((ends - Date.now()) / 1000));
      clock.textContent = `${String(Math.floor(left / 60)).padStart(2, '0')}:${String(left % 60).padStart(2, '0')}`;
      if (left === 0) {
        clock.parentElement.textContent = clock.getAttribute('data-expired-text');
        return;
      }
      setTimeout(tick, 1000);
    };
    tick();
  }

  const watched = document.querySelector('[data-poll]');
  if (watched) {
    const url = watched.getAttribute('data-poll');
    const poll = async () => {
      try {
        const response = await fetch(url, { headers: { accept: 'application/json' }, cache: 'no-store' });
        if (response.ok) {
          const checkout = await response.json();
          if (checkout.status === 'succeeded') return location.assign(watched.getAttribute('data-success-url'));
          // Expired, failed, or given back to the buyer: the page shows what to do next.
          if (checkout.status !== 'confirmed') return location.reload();
        }
      } catch {
        // A lost answer: ask again.
      }
      setTimeout(poll, 2000);
    };
    setTimeout(poll, 2000);
  }
})();
