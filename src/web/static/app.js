/* global document, window, navigator, setTimeout */
// The dashboard's script: native ES modules (js/), no build step, no dependencies. This entry wires what
// every page has (copy buttons, e-mailed link tokens, amounts in the reader's locale, forms that post
// once) and starts the in-app search on its page. Every value from the server is put into the page as
// text (textContent), never as markup.
import { formats } from './js/format.js';
import { initSearch } from './js/search/page.js';

for (const button of document.querySelectorAll('button[data-copy]')) {
  button.addEventListener('click', async () => {
    const input = document.getElementById(button.getAttribute('data-copy'));
    if (!input) return;
    input.select();
    try {
      await navigator.clipboard.writeText(input.value);
    } catch {
      document.execCommand('copy');
    }
    button.textContent = 'Copied';
  });
}

// E-mailed links carry their token in the fragment (never sent to the server); the form posts it.
const linkToken = /^#t=([A-Za-z0-9_-]{20,100})$/.exec(window.location.hash)?.[1];
for (const input of document.querySelectorAll('input[data-link-token]')) {
  if (linkToken) input.value = linkToken;
  window.history.replaceState(null, '', window.location.pathname);
  const tokenForm = input.form;
  if (linkToken && tokenForm?.hasAttribute('data-autosubmit')) tokenForm.submit();
}

// The server writes 1234.50; the reader sees their own thousands separators and decimal mark.
const { credits } = formats(navigator.language || undefined);
for (const node of document.querySelectorAll('[data-credits]')) {
  node.textContent = credits(node.getAttribute('data-credits'));
}

// Order and revoke forms post once: a double click would otherwise place two orders. Disabled after the
// submit event, so the browser has already taken the form's data.
for (const f of document.querySelectorAll('form[method="post"]')) {
  f.addEventListener('submit', () => {
    setTimeout(() => {
      for (const b of f.querySelectorAll('button[type="submit"]')) b.disabled = true;
    }, 0);
  });
}

if (document.getElementById('search-form')) initSearch();
