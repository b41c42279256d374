// The hosted checkout's script (no framework): shows the chosen method's fields, tokenizes the card
// with the gateway's browser script before the post, copies codes, counts a pix down, and follows a
// pending payment until it lands.
'use strict';

(function () {
  // checkout-amounts.js, loaded first.
  const { showAmounts, taxIdFormat, discountPreview } = window.CheckoutAmounts;
  for (const form of document.querySelectorAll('[data-payment-form]')) paymentForm(form);

  function paymentForm(form) {
    const panels = form.querySelectorAll('[data-method]');
    // The buyer's fields a method needs (Pix Automático's payer: name and CPF/CNPJ), required while it is chosen.
    const needed = form.querySelectorAll('[data-required-for]');
    const show = () => {
      const chosen = form.querySelector('[data-method-choice]:checked');
      for (const panel of panels) {
        const on = chosen !== null && panel.getAttribute('data-method') === chosen.value;
        panel.hidden = !on;
        // A hidden method's fields are neither validated nor sent.
        panel.disabled = !on;
      }
      for (const field of needed) {
        field.required = chosen !== null && field.getAttribute('data-required-for') === chosen.value;
      }
    };
    form.addEventListener('change', (event) => {
      if (event.target.matches('[data-method-choice]')) show();
      if (event.target.matches('[data-method-choice], [data-installments]')) showAmounts(form);
    });
    show();
    showAmounts(form);
    taxIdFormat(form);
    const tokenizers = { credit_card: cardTokenizer(form), kept_card: keptCardTokenizer(form) };
    discountPreview(form, tokenizers.credit_card);
    // One submission at a time: a second press while the first is on its way would only be refused.
    form.addEventListener('submit', (event) => {
      if (form.dataset.submitting) return event.preventDefault();
      // "Apply" posts to the preview without the script only; with it, discountPreview fetches it.
      if (event.submitter && event.submitter.hasAttribute('formaction')) return;
      busy(form, true);
      const card = tokenizers[new FormData(form).get('payment_method')];
      if (!card) return;
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

  // The card form on the page's gateway script, which defines MercadoPago.js' interface (MercadoPago.js
  // itself, or the sandbox's sandbox-gateway.js): the number, expiry and security code are Secure
  // Fields, inputs inside the gateway's frames that this script never reads; it learns the card's BIN
  // from them, looks up its payment method, issuer and the issuer's instalment plans, and asks the
  // gateway for the token. Null when the form takes no card.
  function cardTokenizer(form) {
    const fields = form.querySelector('[data-card-fields]');
    if (!fields || !fields.dataset.publicKey) return null;
    const tokenField = fields.querySelector('[data-card-token]');
    const errorBox = fields.querySelector('[data-card-error]');
    const holder = fields.querySelector('[data-card="name"]');
    const methodField = fields.querySelector('[data-card-method]');
    const issuerField = fields.querySelector('[data-card-issuer]');
    const select = fields.querySelector('[data-installments]');
    let offered = Array.from(select.options).map((option) => option.cloneNode(true));
    const labelOf = (id) => fields.querySelector(`[data-label-of="${id}"]`).textContent.trim();
    if (typeof window.MercadoPago !== 'function') {
      return { tokenize: async () => Promise.reject(fields.dataset.unloadedText), fail };
    }
    const lang = document.documentElement.lang === 'en' ? 'en-US' : 'pt-BR';
    const mp = new window.MercadoPago(fields.dataset.publicKey, {
      locale: lang,
      // Usage metrics only: nothing the buyer needs, and an origin the page's CSP does not name.
      trackingDisabled: true,
    });
    // Which secure fields the buyer has typed in, and which ones their last validityChange found wrong
    // (the only things the page learns of them).
    const typed = {};
    const wrong = {};
    const mountField = (type, id) => {
      const field = mp.fields.create(type, { srLabel: labelOf(id) });
      field.on('change', () => (typed[id] = true));
      field.on('validityChange', (event) => (wrong[id] = event.errorMessages.length > 0));
      field.mount(id);
      fields.querySelector(`#${id}`).closest('[data-secure-slot]').hidden = false;
      return field;
    };
    const number = mountField('cardNumber', 'card_number_field');
    mountField('expirationDate', 'card_expiration_field');
    mountField('securityCode', 'card_csc_field');
    let lookUp = Promise.resolve();
    let lastBin = null;
    number.on('binChange', (event) => {
      lastBin = event.bin;
      lookUp = lookUpCard(event.bin);
    });
    const brand = fields.querySelector('[data-card-brand]');
    const brands = JSON.parse(fields.dataset.brands || '{}');
    // The card's brand, as the gateway names the payment method of its BIN (its prefix).
    const showBrand = (methodId) => {
      const name = methodId && brands[methodId];
      brand.textContent = name ? fields.dataset.brandText.replace('{brand}', name) : '';
      brand.hidden = !name;
    };

    // The card's payment method and issuer, and only the instalments its issuer offers (up to the
    // checkout's most), each with what the buyer pays in all; a debit card pays at once.
    async function lookUpCard(bin) {
      methodField.value = '';
      issuerField.value = '';
      showBrand(null);
      const chosen = select.value;
      if (!bin) {
        select.replaceChildren(...offered.map((option) => option.cloneNode(true)));
        return keepChoice(chosen);
      }
      try {
        const methods = await mp.getPaymentMethods({ bin });
        const method = methods && methods.results && methods.results[0];
        if (!method) return;
        const plans = await mp.getInstallments({
          amount: (Number(fields.dataset.amount) / 100).toFixed(2),
          bin,
          paymentTypeId: method.payment_type_id,
        });
        const plan = plans && plans[0];
        methodField.value = method.id;
        showBrand(method.id);
        issuerField.value = String(
          (plan && plan.issuer && plan.issuer.id) || (method.issuer && method.issuer.id) || '',
        );
        const most = method.payment_type_id === 'debit_card' ? 1 : Number(fields.dataset.maxInstallments);
        const costs = ((plan && plan.payer_costs) || []).filter((cost) => cost.installments <= most);
        if (costs.length > 0) select.replaceChildren(...costs.map(optionOf));
        keepChoice(chosen);
      } catch {
        // No answer: the server's own plans stay, and the gateway decides at the payment.
      }
    }

    // The buyer's choice survives new plans where they still offer it; the amounts follow what is shown.
    function keepChoice(chosen) {
      if (Array.from(select.options).some((option) => option.value === chosen)) select.value = chosen;
      showAmounts(form);
    }

    // Another amount (a discount code applied): the server's plans for it, then the issuer's for the card.
    async function reprice() {
      offered = Array.from(select.options).map((option) => option.cloneNode(true));
      if (lastBin) await (lookUp = lookUpCard(lastBin));
    }

    const money = new Intl.NumberFormat(lang, { style: 'currency', currency: 'BRL' });
    function optionOf(cost) {
      const template =
        cost.installments === 1
          ? fields.dataset.optionOne
          : cost.installment_rate === 0
            ? fields.dataset.optionFree
            : fields.dataset.optionInterest;
      const option = document.createElement('option');
      option.value = String(cost.installments);
      option.textContent = template
        .replace('{n}', String(cost.installments))
        .replace('{each}', money.format(cost.installment_amount))
        .replace('{total}', money.format(cost.total_amount));
      // What the page shows once it is chosen: the total, the plan line (interest named) and the button.
      const interest = Math.round(cost.total_amount * 100) - Number(fields.dataset.amount);
      const plan =
        cost.installments === 1
          ? fields.dataset.planOne
          : interest > 0
            ? fields.dataset.planInterest
            : fields.dataset.planFree;
      option.dataset.totalText = money.format(cost.total_amount);
      option.dataset.planText = plan
        .replace('{n}', String(cost.installments))
        .replace('{each}', money.format(cost.installment_amount))
        .replace('{interest}', money.format(interest / 100));
      option.dataset.payText = fields.dataset.payTemplate.replace('{amount}', money.format(cost.total_amount));
      return option;
    }

    async function tokenize() {
      errorBox.hidden = true;
      errorBox.textContent = '';
      tokenField.value = '';
      const missing = ['card_number_field', 'card_name', 'card_expiration_field', 'card_csc_field']
        .filter((id) => (id === 'card_name' ? !holder.value.trim() : !typed[id] || wrong[id]))
        .map(labelOf);
      if (missing.length > 0) throw `${fields.dataset.missingText} ${missing.join(', ')}.`;
      await lookUp;
      const taxId = form.elements.namedItem('tax_id');
      // The buyer's CPF or CNPJ, when the form has it: Mercado Pago takes it as the holder's document.
      const taxDigits = taxId ? taxId.value.replace(/\D/g, '') : '';
      const taxIdType = { 11: 'CPF', 14: 'CNPJ' }[taxDigits.length];
      let token;
      try {
        token = await mp.fields.createCardToken({
          cardholderName: holder.value.trim(),
          ...(taxIdType ? { identificationType: taxIdType, identificationNumber: taxDigits } : {}),
        });
      } catch {
        throw fields.dataset.failedText;
      }
      if (!token || !token.id) throw fields.dataset.failedText;
      tokenField.value = token.id;
      // Where the name is named (the no-JavaScript fallback), it loses its name: only the token is posted.
      holder.removeAttribute('name');
    }

    function fail(message) {
      errorBox.textContent = typeof message === 'string' ? message : fields.dataset.failedText;
      errorBox.hidden = false;
    }

    return { tokenize, fail, reprice };
  }

  // The card the subscription keeps (decision 0078): the buyer types only its security code, in a
  // Secure Field of its own, and the gateway's script mints the card's token from the card's id and that
  // code (MercadoPago.js `mp.fields.createCardToken({ cardId })`, as Mercado Pago's saved-cards guide
  // does). Its own MercadoPago instance: the new card's fields have a security code field too.
  function keptCardTokenizer(form) {
    const fields = form.querySelector('[data-kept-card-fields]');
    if (!fields) return null;
    const tokenField = fields.querySelector('[data-card-token]');
    const errorBox = fields.querySelector('[data-card-error]');
    const fail = (message) => {
      errorBox.textContent = typeof message === 'string' ? message : fields.dataset.failedText;
      errorBox.hidden = false;
    };
    if (typeof window.MercadoPago !== 'function') {
      return { tokenize: async () => Promise.reject(fields.dataset.unloadedText), fail };
    }
    const mp = new window.MercadoPago(fields.dataset.publicKey, {
      locale: document.documentElement.lang === 'en' ? 'en-US' : 'pt-BR',
      trackingDisabled: true,
    });
    const id = 'kept_card_csc_field';
    const label = fields.querySelector(`[data-label-of="${id}"]`).textContent.trim();
    let typed = false;
    let wrong = false;
    const code = mp.fields.create('securityCode', { srLabel: label });
    code.on('change', () => (typed = true));
    code.on('validityChange', (event) => (wrong = event.errorMessages.length > 0));
    code.mount(id);
    fields.querySelector(`#${id}`).closest('[data-secure-slot]').hidden = false;

    async function tokenize() {
      errorBox.hidden = true;
      errorBox.textContent = '';
      tokenField.value = '';
      if (!typed || wrong) throw fields.dataset.missingText;
      let token;
      try {
        token = await mp.fields.createCardToken({ cardId: fields.dataset.cardId });
      } catch {
        throw fields.dataset.failedText;
      }
      if (!token || !token.id) throw fields.dataset.failedText;
      tokenField.value = token.id;
    }

    return { tokenize, fail };
  }

  // A 3-D Secure challenge: the issuer's page opens in the frame by posting creq to it; when the frame
  // says the challenge is over ({ status: 'COMPLETE' }, Mercado Pago's 3DS guide), the page waits for
  // the payment's result like any pending payment (the poll below).
  for (const challenge of document.querySelectorAll('[data-challenge-form]')) {
    const section = challenge.closest('section');
    const frame = section.querySelector('[data-challenge-frame]');
    window.addEventListener('message', (event) => {
      if (event.source !== frame.contentWindow || !event.data || event.data.status !== 'COMPLETE') return;
      frame.hidden = true;
      section.querySelector('[data-challenge-done]').hidden = false;
    });
    challenge.submit();
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
      let wait = 2000;
      try {
        const response = await fetch(url, { headers: { accept: 'application/json' }, cache: 'no-store' });
        // Too many requests: ask again once the API says so; the page itself shows nothing of it.
        if (response.status === 429) wait = Math.max(wait, Number(response.headers.get('retry-after')) * 1000 || 0);
        if (response.ok) {
          const checkout = await response.json();
          if (checkout.status === 'succeeded') return location.assign(watched.getAttribute('data-success-url'));
          // Expired, failed, or given back to the buyer: the page shows what to do next.
          if (checkout.status !== 'confirmed') return location.reload();
        }
      } catch {
        // A lost answer: ask again.
      }
      setTimeout(poll, wait);
    };
    setTimeout(poll, 2000);
  }
})();
