import type { OutboxEntry } from '../../identity/mailer.ts';
import { PASSWORD_MIN_LENGTH } from '../../identity/passwords.ts';
import { csrfField, formatDate, html, type SafeHtml } from '../html.ts';

/** The sign-up, verification, sign-in and password-reset pages, and the development outbox. */

export function message(kind: 'error' | 'ok', text: string | null): SafeHtml | string {
  return text ? html`<p class="${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</p>` : '';
}

/** Only with the development outbox mailer: where the message just sent can be read. */
function outboxHint(outbox: boolean): SafeHtml | string {
  return outbox
    ? html`<p class="note">Development mailer: the message is in the <a href="/dev/outbox">outbox</a>.</p>`
    : '';
}

export function signUpBody(csrfToken: string, error: string | null, email: string): SafeHtml {
  return html`<h1>Create an account</h1>
    <p>
      New accounts get 30 credits valid for 7 days and a 7-day trial of unmetered API and MCP use. No card
      needed.
    </p>
    ${message('error', error)}
    <form method="post" action="/signup" class="stack">
      ${csrfField(csrfToken)}
      <label for="email">E-mail</label>
      <input id="email" name="email" type="email" autocomplete="email" required value="${email}" />
      <label for="password">Password (at least ${PASSWORD_MIN_LENGTH} characters)</label>
      <input
        id="password"
        name="password"
        type="password"
        autocomplete="new-password"
        minlength="${PASSWORD_MIN_LENGTH}"
        required
      />
      <button type="submit">Sign up</button>
    </form>
    <p>Already have an account? <a href="/signin">Sign in</a>.</p>`;
}

export function checkEmailBody(email: string, outbox: boolean): SafeHtml {
  return html`<h1>Check your e-mail</h1>
    <p>We sent a link to <strong>${email}</strong>. Open it to complete your registration.</p>
    ${outboxHint(outbox)}`;
}

export function signInBody(
  csrfToken: string,
  error: string | null,
  note: string | null,
  email: string,
): SafeHtml {
  return html`<h1>Sign in</h1>
    ${message('ok', note)} ${message('error', error)}
    <form method="post" action="/signin" class="stack">
      ${csrfField(csrfToken)}
      <label for="email">E-mail</label>
      <input id="email" name="email" type="email" autocomplete="username" required value="${email}" />
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required />
      <button type="submit">Sign in</button>
    </form>
    <p><a href="/reset">Forgot your password?</a> · <a href="/signup">Create an account</a></p>`;
}

/** The link's token is in the URL fragment; the page's script moves it into the form, which posts it. */
export function verifyBody(csrfToken: string): SafeHtml {
  return html`<h1>Verify your e-mail address</h1>
    <form method="post" action="/verify" class="stack" data-autosubmit>
      ${csrfField(csrfToken)}
      <input type="hidden" name="token" data-link-token />
      <button type="submit">Complete registration</button>
    </form>`;
}

export function linkInvalidBody(error: string): SafeHtml {
  return html`<h1>Link not valid</h1>
    ${message('error', error)}
    <p>Sign up again with the same address to get a new link.</p>`;
}

export function resetRequestBody(csrfToken: string, note: SafeHtml | string): SafeHtml {
  return html`<h1>Reset your password</h1>
    ${note}
    <form method="post" action="/reset" class="stack">
      ${csrfField(csrfToken)}
      <label for="email">E-mail</label>
      <input id="email" name="email" type="email" autocomplete="email" required />
      <button type="submit">Send reset link</button>
    </form>`;
}

/** The same whether or not the address has an account. */
export function resetSentNotice(outbox: boolean): SafeHtml {
  return html`${message('ok', 'If that address has a verified account, a reset link is on its way.')}
  ${outboxHint(outbox)}`;
}

export function resetBody(csrfToken: string, token: string, error: string | null): SafeHtml {
  return html`<h1>Choose a new password</h1>
    ${message('error', error)}
    <form method="post" action="/reset/confirm" class="stack">
      ${csrfField(csrfToken)}
      <input type="hidden" name="token" value="${token}" data-link-token />
      <label for="password">New password (at least ${PASSWORD_MIN_LENGTH} characters)</label>
      <input id="password" name="password" type="password" autocomplete="new-password" required />
      <button type="submit">Set password</button>
    </form>`;
}

export function outboxBody(messages: readonly OutboxEntry[]): SafeHtml {
  return html`<h1>Development outbox</h1>
    <p class="note">
      REGDATA_MAILER=outbox: mail is kept here instead of being sent. Set REGDATA_MAILER=smtp (or sendmail) in
      production.
    </p>
    ${messages.length === 0 ? html`<p>No messages yet.</p>` : ''}
    ${messages.map(
      (m) =>
        html`<article class="mail">
          <h2>${m.subject}</h2>
          <p>To ${m.to} · ${formatDate(m.sentAt)}</p>
          <pre>${linkify(m.text)}</pre>
        </article>`,
    )}`;
}

/** Makes the URLs of an outbox message clickable (each is escaped as text and as an attribute). */
function linkify(text: string): SafeHtml[] {
  return text
    .split(/(https?:\/\/\S+)/)
    .map((part, i) => (i % 2 === 1 ? html`<a href="${part}">${part}</a>` : html`${part}`));
}
