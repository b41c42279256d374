// The dashboard's one script: copy buttons. Every page works without it (forms post, links navigate).
'use strict';
document.addEventListener('DOMContentLoaded', () => {
  for (const button of document.querySelectorAll('[data-copy]')) {
    button.addEventListener('click', async () => {
      const id = button.getAttribute('data-copy');
      const text = document.getElementById(id).textContent.trim();
      const copied = await navigator.clipboard.writeText(text).then(
        () => true,
        () => false,
      );
      const status = document.querySelector(`[data-copy-status="${id}"]`);
      if (!status) return;
      // The words are the page's (its language), carried by the status element.
      status.textContent = status.getAttribute(copied ? 'data-copied' : 'data-copy-failed');
      setTimeout(() => (status.textContent = ''), 2000);
    });
  }
});
