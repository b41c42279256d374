// The hosted checkout's amounts and inputs (loaded before checkout.js, which uses them): what the card
// is charged shown wherever the page says it, the CPF/CNPJ formatted as typed, and a discount code's
// preview before paying.
'use strict';

(function () {
  // What the card is charged, wherever the page says it: the summary's total and plan line and the
  // card's button follow the instalments chosen (each option carries its texts, server-rendered or built
  // from the gateway's plans below); a pix or boleto pays the checkout's amount at once.
  function showAmounts(form) {
    const amounts = document.querySelector('[data-amounts]');
    const chosen = form.querySelector('[data-method-choice]:checked');
    // The card-instead form has no choice of method: the form is the card's panel.
    const panel = chosen ? form.querySelector(`[data-method="${chosen.value}"]`) : form;
    const select = panel && panel.querySelector('[data-installments]');
    const option = select && select.selectedOptions[0];
    if (option) {
      const button = panel.querySelector('[data-pay-button]');
      if (button) button.textContent = option.dataset.payText;
    }
    if (!amounts) return;
    const first = select ? select.options[0] : form.querySelector('[data-installments] option');
    const shown = option || first;
    if (!shown) return;
    amounts.querySelector('[data-total]').textContent = shown.dataset.totalText;
    const plan = amounts.querySelector('[data-plan]');
    if (plan) plan.textContent = shown.dataset.planText;
  }

  // CPF (000.000.000-00) or CNPJ (00.000.000/0000-00), formatted as typed; the server takes either form.
  function taxIdFormat(form) {
    const input = form.querySelector('[data-tax-id]');
    if (!input) return;
    const format = (value) => {
      const d = value.replace(/\D/g, '').slice(0, 14);
      const [cuts, marks] = d.length <= 11 ? [[3, 6, 9], '..-'] : [[2, 5, 8, 12], '../-'];
      let out = d.slice(0, cuts[0]);
      cuts.forEach((cut, i) => {
        if (d.length > cut) out += marks[i] + d.slice(cut, cuts[i + 1]);
      });
      return out;
    };
    input.addEventListener('input', () => (input.value = format(input.value)));
    if (input.value) input.value = format(input.value);
  }

  // A discount code applied before paying: the page priced with it (the same post "apply" makes
  // without the script), from which the amounts, the instalments and the code's status are taken.
  function discountPreview(form, card) {
    const apply = form.querySelector('[data-apply-discount]');
    if (!apply || !form.dataset.preview) return;
    apply.addEventListener('click', async (event) => {
      event.preventDefault();
      const sent = new window.URLSearchParams();
      for (const [name, value] of new FormData(form)) if (!name.startsWith('card_')) sent.append(name, value);
      apply.setAttribute('aria-busy', 'true');
      try {
        const response = await fetch(form.dataset.preview, {
          method: 'POST',
          body: sent,
          headers: { accept: 'text/html' },
        });
        const next = new window.DOMParser().parseFromString(await response.text(), 'text/html');
        const status = form.querySelector('[data-discount-status]');
        const refusal = next.querySelector('#payment-alert');
        status.textContent = refusal
          ? refusal.textContent.trim()
          : next.querySelector('[data-discount-status]').textContent.trim();
        status.classList.toggle('refused', !!refusal);
        if (!refusal) {
          document.querySelector('[data-amounts]').replaceWith(next.querySelector('[data-amounts]'));
          for (const select of form.querySelectorAll('[data-installments]')) {
            const fresh = next.getElementById(select.id);
            if (!fresh) continue;
            select.replaceChildren(...Array.from(fresh.options).map((option) => option.cloneNode(true)));
            select.value = fresh.value;
          }
          const fields = form.querySelector('[data-card-fields]');
          const freshFields = next.querySelector('[data-card-fields]');
          if (fields && freshFields) fields.dataset.amount = freshFields.dataset.amount;
          if (card && card.reprice) await card.reprice();
        }
        showAmounts(form);
      } catch {
        // No answer: the code still goes with the payment, which applies it or says why not.
      } finally {
        apply.removeAttribute('aria-busy');
      }
    });
  }

  window.CheckoutAmounts = { showAmounts, taxIdFormat, discountPreview };
})();
