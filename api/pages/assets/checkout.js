// The hosted checkout's only script (a few hundred bytes' worth of work, no framework): shows the
// chosen method's fields, copies codes, counts a pix down, and follows a pending payment until it lands.
'use strict';

(function () {
  const form = document.querySelector('[data-payment-form]');
  if (form) {
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
    // One submission at a time: a second press while the first is on its way would only be refused.
    form.addEventListener('submit', (event) => {
      if (form.dataset.submitting) event.preventDefault();
      form.dataset.submitting = 'true';
      for (const button of form.querySelectorAll('button[type="submit"]')) button.setAttribute('aria-busy', 'true');
    });
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
