import { html, type SafeHtml } from '../html.ts';

/** A refusal, read out at once by screen readers. */
export function errorNotice(text: string): SafeHtml {
  return html`<p class="error" role="alert">${text}</p>`;
}

/** An outcome, read out politely. */
export function statusNotice(text: string): SafeHtml {
  return html`<p class="ok" role="status">${text}</p>`;
}
