import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isAppError, type AppError } from '../errors/app-error.ts';
import { isLoopbackHost } from '../http/loopback.ts';
import { OutboxMailer } from '../identity/mailer.ts';
import { isRateLimitedError } from '../wallet/errors.ts';
import { PASSWORD_MIN_LENGTH } from '../identity/passwords.ts';
import {
  appendCookie,
  baseUrl,
  clearCookie,
  clientAddress,
  SESSION_COOKIE,
  sessionCookie,
  type WebDeps,
} from './context.ts';
import { csrfField, formatDate, html, layout, type SafeHtml } from './html.ts';
import { formField, sendPage, type FormBody } from './respond.ts';

/** Sign-up, e-mail verification, sign-in/out and password reset (issue 9: self-service accounts). */
export function authPages(app: FastifyInstance, deps: WebDeps): void {
  const { identity, wallet, mail } = deps;
  const outbox = mail.mailer instanceof OutboxMailer ? mail.mailer : null;

  const page = (request: FastifyRequest, title: string, body: SafeHtml, scripts = false) =>
    layout(
      { title, email: request.web.session?.email ?? null, csrfToken: request.web.csrfToken, scripts },
      body,
    );

  const message = (kind: 'error' | 'ok', text: string | null) =>
    text ? html`<p class="${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</p>` : '';

  /** A refused form: 429 with Retry-After for a throttle or sign-in delay, else the given status. */
  const refused = (reply: FastifyReply, err: AppError, status: number): FastifyReply => {
    if (isRateLimitedError(err)) return reply.code(429).header('retry-after', String(err.retryAfterSeconds));
    return reply.code(status);
  };

  const outboxHint = () =>
    outbox
      ? html`<p class="note">Development mailer: the message is in the <a href="/dev/outbox">outbox</a>.</p>`
      : '';

  const signUpForm = (request: FastifyRequest, error: string | null, email = '') =>
    page(
      request,
      'Sign up',
      html`<h1>Create an account</h1>
        <p>
          New accounts get 30 credits valid for 7 days and a 7-day trial of unmetered API and MCP use. No card
          needed.
        </p>
        ${message('error', error)}
        <form method="post" action="/signup" class="stack">
          ${csrfField(request.web.csrfToken)}
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
        <p>Already have an account? <a href="/signin">Sign in</a>.</p>`,
    );

  const signInForm = (request: FastifyRequest, error: string | null, note: string | null, email = '') =>
    page(
      request,
      'Sign in',
      html`<h1>Sign in</h1>
        ${message('ok', note)} ${message('error', error)}
        <form method="post" action="/signin" class="stack">
          ${csrfField(request.web.csrfToken)}
          <label for="email">E-mail</label>
          <input id="email" name="email" type="email" autocomplete="username" required value="${email}" />
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required />
          <button type="submit">Sign in</button>
        </form>
        <p><a href="/reset">Forgot your password?</a> · <a href="/signup">Create an account</a></p>`,
    );

  app.get('/signup', async (request, reply) => sendPage(reply, signUpForm(request, null)));

  app.post<{ Body: FormBody }>('/signup', async (request, reply) => {
    const email = formField(request.body, 'email');
    try {
      // Queues the mail (a link, or "you already have an account") in the sign-up's own transaction: the
      // answer never waits for the mailer, and a broken one cannot turn it into an error.
      await identity.signUp(
        email,
        formField(request.body, 'password'),
        clientAddress(request),
        baseUrl(deps, request),
      );
    } catch (err) {
      if (isAppError(err) && err.status < 500) {
        return sendPage(refused(reply, err, 422), signUpForm(request, err.message, email));
      }
      throw err;
    }
    mail.kick();
    // The same answer whether or not the address already had an account.
    return sendPage(
      reply,
      page(
        request,
        'Check your e-mail',
        html`<h1>Check your e-mail</h1>
          <p>We sent a link to <strong>${email}</strong>. Open it to complete your registration.</p>
          ${outboxHint()}`,
      ),
    );
  });

  // E-mailed links carry their token in the URL fragment, which browsers never send: it stays out of
  // request logs, proxies and Referer headers, and a mail scanner fetching the link cannot spend it. The
  // page's script moves it into the form, which posts it.
  app.get('/verify', async (request, reply) =>
    sendPage(
      reply,
      page(
        request,
        'Verify your e-mail',
        html`<h1>Verify your e-mail address</h1>
          <form method="post" action="/verify" class="stack" data-autosubmit>
            ${csrfField(request.web.csrfToken)}
            <input type="hidden" name="token" data-link-token />
            <button type="submit">Complete registration</button>
          </form>`,
        true,
      ),
    ),
  );

  app.post<{ Body: FormBody }>('/verify', async (request, reply) => {
    try {
      const user = await identity.verifyEmail(formField(request.body, 'token'));
      // Spec 5.6: registration is complete now; the account gets its credits and trial exactly once.
      const { accountId } = await wallet.completeRegistration(user.email);
      await identity.linkAccount(user.userId, accountId);
      return sendPage(
        reply,
        signInForm(request, null, 'Your e-mail address is verified. Sign in to start.', user.email),
      );
    } catch (err) {
      if (isAppError(err) && err.status < 500) {
        return sendPage(
          reply.code(400),
          page(
            request,
            'Link not valid',
            html`<h1>Link not valid</h1>
              ${message('error', err.message)}
              <p>Sign up again with the same address to get a new link.</p>`,
          ),
        );
      }
      throw err;
    }
  });

  app.get('/signin', async (request, reply) => sendPage(reply, signInForm(request, null, null)));

  app.post<{ Body: FormBody }>('/signin', async (request, reply) => {
    const email = formField(request.body, 'email');
    try {
      const { token, session } = await identity.signIn(
        email,
        formField(request.body, 'password'),
        clientAddress(request),
      );
      // Whatever session the browser had is ended; the new one is a token we just made (no fixation).
      await identity.signOut(request.web.sessionToken);
      if (session.accountId === null) {
        // Verified before the account link was written (a crash between the two): finish it now.
        const { accountId } = await wallet.completeRegistration(session.email);
        await identity.linkAccount(session.userId, accountId);
      }
      appendCookie(reply, sessionCookie(deps, token, session.expiresAt));
      return reply.redirect('/dashboard', 303);
    } catch (err) {
      if (isAppError(err) && err.status < 500) {
        request.log.info({ reason: err.code }, 'sign-in refused');
        return sendPage(refused(reply, err, err.status), signInForm(request, err.message, null, email));
      }
      throw err;
    }
  });

  app.post('/signout', async (request, reply) => {
    await identity.signOut(request.web.sessionToken);
    appendCookie(reply, clearCookie(deps, SESSION_COOKIE));
    return reply.redirect('/signin', 303);
  });

  const resetRequestForm = (request: FastifyRequest, note: SafeHtml | string) =>
    page(
      request,
      'Reset password',
      html`<h1>Reset your password</h1>
        ${note}
        <form method="post" action="/reset" class="stack">
          ${csrfField(request.web.csrfToken)}
          <label for="email">E-mail</label>
          <input id="email" name="email" type="email" autocomplete="email" required />
          <button type="submit">Send reset link</button>
        </form>`,
    );

  app.get('/reset', async (request, reply) => sendPage(reply, resetRequestForm(request, '')));

  app.post<{ Body: FormBody }>('/reset', async (request, reply) => {
    try {
      // Known or not, the same work and the same page (identity.ts): the mail is queued, not sent here.
      await identity.requestPasswordReset(
        formField(request.body, 'email'),
        clientAddress(request),
        baseUrl(deps, request),
      );
    } catch (err) {
      if (isAppError(err) && err.status < 500) {
        return sendPage(refused(reply, err, 400), resetRequestForm(request, message('error', err.message)));
      }
      throw err;
    }
    mail.kick();
    return sendPage(
      reply,
      resetRequestForm(
        request,
        html`${message('ok', 'If that address has a verified account, a reset link is on its way.')}
        ${outboxHint()}`,
      ),
    );
  });

  const resetForm = (request: FastifyRequest, token: string, error: string | null) =>
    page(
      request,
      'Choose a new password',
      html`<h1>Choose a new password</h1>
        ${message('error', error)}
        <form method="post" action="/reset/confirm" class="stack">
          ${csrfField(request.web.csrfToken)}
          <input type="hidden" name="token" value="${token}" data-link-token />
          <label for="password">New password (at least ${PASSWORD_MIN_LENGTH} characters)</label>
          <input id="password" name="password" type="password" autocomplete="new-password" required />
          <button type="submit">Set password</button>
        </form>`,
      true,
    );

  app.get('/reset/confirm', async (request, reply) => sendPage(reply, resetForm(request, '', null)));

  app.post<{ Body: FormBody }>('/reset/confirm', async (request, reply) => {
    const token = formField(request.body, 'token');
    try {
      const { email } = await identity.resetPassword(token, formField(request.body, 'password'));
      return sendPage(
        reply,
        signInForm(request, null, 'Password changed; every other session was signed out.', email),
      );
    } catch (err) {
      if (isAppError(err) && err.status < 500)
        return sendPage(reply.code(400), resetForm(request, token, err.message));
      throw err;
    }
  });

  // Only a development server on loopback has an outbox mailer (serveSettings refuses anything else). A
  // request must also name a loopback host, so a web page whose name resolves to 127.0.0.1 (DNS
  // rebinding) cannot read the links.
  if (outbox) {
    app.get('/dev/outbox', async (request, reply) => {
      if (!isLoopbackHost(request.hostname)) {
        return reply
          .code(403)
          .send({ detail: 'the development outbox answers only to a loopback host name' });
      }
      // What is queued is delivered first, so the page shows a message the moment its form was answered.
      await mail.drain();
      return sendPage(
        reply,
        page(
          request,
          'Outbox',
          html`<h1>Development outbox</h1>
            <p class="note">
              REGDATA_MAILER=outbox: mail is kept here instead of being sent. Set REGDATA_MAILER=smtp (or
              sendmail) in production.
            </p>
            ${outbox.list().length === 0 ? html`<p>No messages yet.</p>` : ''}
            ${outbox.list().map(
              (m) =>
                html`<article class="mail">
                  <h2>${m.subject}</h2>
                  <p>To ${m.to} · ${formatDate(m.sentAt)}</p>
                  <pre>${linkify(m.text)}</pre>
                </article>`,
            )}`,
        ),
      );
    });
  }
}

/** Makes the URLs of an outbox message clickable (each is escaped as text and as an attribute). */
function linkify(text: string): SafeHtml[] {
  return text
    .split(/(https?:\/\/\S+)/)
    .map((part, i) => (i % 2 === 1 ? html`<a href="${part}">${part}</a>` : html`${part}`));
}
