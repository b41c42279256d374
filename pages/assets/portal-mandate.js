// The customer portal's "Ativar Pix Automático" (decision 0101): copies the QR code's copy-and-paste
// code, and while the mandate waits for the payer asks its status every few seconds, reloading the
// page once the payer has answered (authorized, refused) or the request ended, so it shows what became of it.
'use strict';

(function () {
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

  const watched = document.querySelector('[data-poll]');
  if (!watched) return;
  const url = watched.getAttribute('data-poll');
  const poll = async () => {
    let wait = 3000;
    try {
      const response = await fetch(url, { headers: { accept: 'application/json' }, cache: 'no-store' });
      // Too many requests: ask again once the server says so.
      if (response.status === 429) wait = Math.max(wait, Number(response.headers.get('retry-after')) * 1000 || 0);
      if (response.ok) {
        const { status } = await response.json();
        if (status !== 'created') return location.assign(location.pathname);
      }
    } catch {
      // A lost answer: ask again.
    }
    setTimeout(poll, wait);
  };
  setTimeout(poll, 3000);
})();
