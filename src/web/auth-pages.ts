import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isAppError, type AppError } from '../errors/app-error.ts';
import { isLoopbackHost } from '../http/loopback.ts';
import { OutboxMailer } from '../identity/mailer.ts';
import { isRateLimitedError } from '../wallet/errors.ts';
import {
  appendCookie,
  baseUrl,
  clearCookie,
  clientAddress,
  SESSION_COOKIE,
  sessionCookie,
  type WebDeps,
} from './context.ts';
import { layout, type SafeHtml } from './html.ts';
import { formField, sendPage, type FormBody } from './respond.ts';
import {
  checkEmailBody,
  linkInvalidBody,
  message,
  outboxBody,
  resetBody,
  resetRequestBody,
  resetSentNotice,
  signInBody,
  signUpBody,
  verifyBody,
} from './templates/auth.ts';

/** Sign-up, e-mail verification, sign-in/out and password reset (issue 9: self-service accounts). */
export function authPages(app: FastifyInstance, deps: WebDeps): void {
  signUpRoutes(app, deps);
  signInRoutes(app, deps);
  resetRoutes(app, deps);
  // Only a development server on loopback has an outbox mailer (serveSettings refuses anything else).
  if (deps.mail.mailer instanceof OutboxMailer) outboxRoute(app, deps.mail, deps.mail.mailer);
}

function page(request: FastifyRequest, title: string, body: SafeHtml, scripts = false): string {
  return layout(
    { title, email: request.web.session?.email ?? null, csrfToken: request.web.csrfToken, scripts },
    body,
  );
}

/** A refused form: 429 with Retry-After for a throttle or sign-in delay, else the given status. */
function refused(reply: FastifyReply, err: AppError, status: number): FastifyReply {
  if (isRateLimitedError(err)) return reply.code(429).header('retry-after', String(err.retryAfterSeconds));
  return reply.code(status);
}

function signInForm(request: FastifyRequest, error: string | null, note: string | null, email = ''): string {
  return page(request, 'Sign in', signInBody(request.web.csrfToken, error, note, email));
}

function hasOutbox(deps: WebDeps): boolean {
  return deps.mail.mailer instanceof OutboxMailer;
}

function signUpRoutes(app: FastifyInstance, deps: WebDeps): void {
  const { identity, wallet, mail } = deps;
  const signUpForm = (request: FastifyRequest, error: string | null, email = '') =>
    page(request, 'Sign up', signUpBody(request.web.csrfToken, error, email));

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
    return sendPage(reply, page(request, 'Check your e-mail', checkEmailBody(email, hasOutbox(deps))));
  });

  // E-mailed links carry their token in the URL fragment, which browsers never send: it stays out of
  // request logs, proxies and Referer headers, and a mail scanner fetching the link cannot spend it. The
  // page's script moves it into the form, which posts it.
  app.get('/verify', async (request, reply) =>
    sendPage(reply, page(request, 'Verify your e-mail', verifyBody(request.web.csrfToken), true)),
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
        return sendPage(reply.code(400), page(request, 'Link not valid', linkInvalidBody(err.message)));
      }
      throw err;
    }
  });
}

function signInRoutes(app: FastifyInstance, deps: WebDeps): void {
  const { identity, wallet } = deps;
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
}

function resetRoutes(app: FastifyInstance, deps: WebDeps): void {
  const { identity, mail } = deps;
  const resetRequestForm = (request: FastifyRequest, note: SafeHtml | string) =>
    page(request, 'Reset password', resetRequestBody(request.web.csrfToken, note));

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
    return sendPage(reply, resetRequestForm(request, resetSentNotice(hasOutbox(deps))));
  });

  const resetForm = (request: FastifyRequest, token: string, error: string | null) =>
    page(request, 'Choose a new password', resetBody(request.web.csrfToken, token, error), true);

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
}

/**
 * A request must also name a loopback host, so a web page whose name resolves to 127.0.0.1 (DNS
 * rebinding) cannot read the links.
 */
function outboxRoute(app: FastifyInstance, mail: WebDeps['mail'], outbox: OutboxMailer): void {
  app.get('/dev/outbox', async (request, reply) => {
    if (!isLoopbackHost(request.hostname)) {
      return reply.code(403).send({ detail: 'the development outbox answers only to a loopback host name' });
    }
    // What is queued is delivered first, so the page shows a message the moment its form was answered.
    await mail.drain();
    return sendPage(reply, page(request, 'Outbox', outboxBody(outbox.list())));
  });
}
