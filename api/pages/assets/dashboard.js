// The dashboard's one script: copy buttons. Every page works without it (forms post, links navigate).
'use strict';
document.addEventListener('DOMContentLoaded', () => {
  for (const button of document.querySelectorAll('[data-copy]')) {
    button.addEventListener('click', async () => {
      const text = document.getElementById(button.getAttribute('data-copy')).textContent.trim();
      await navigator.clipboard.writeText(text).catch(() => undefined);
      const label = button.textContent;
      button.textContent = 'Copied';
      setTimeout(() => (button.textContent = label), 2000);
    });
  }
});
