import type { QueueMail } from './mail-queue.ts';

/**
 * The account e-mails. Links carry their token in the URL fragment (`#t=`), which browsers never send, so
 * it stays out of request logs and Referer headers; `base` is REGDATA_PUBLIC_URL (or, on a loopback server
 * without it, the listening address), never a request's Host.
 */

export function verifyMail(to: string, base: string, token: string): QueueMail {
  return {
    kind: 'verify',
    to,
    subject: 'Verify your e-mail address for regdata',
    text: `Open this link to complete your registration:\n\n${base}/verify#t=${token}\n\nThe link is valid for 48 hours.`,
  };
}

/** Sign-up with an address that already has a verified account: told by mail, never on the page. */
export function accountExistsMail(to: string, base: string): QueueMail {
  return {
    kind: 'account_exists',
    to,
    subject: 'Your regdata account',
    text: `Someone (maybe you) tried to sign up with this address, which already has an account.\nSign in at ${base}/signin or reset the password at ${base}/reset.`,
  };
}

export function resetMail(to: string, base: string, token: string): QueueMail {
  return {
    kind: 'reset',
    to,
    subject: 'Reset your regdata password',
    text: `Open this link to choose a new password (valid for one hour):\n\n${base}/reset/confirm#t=${token}\n\nIf you did not ask for this, ignore this message.`,
  };
}
