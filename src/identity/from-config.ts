import { ConfigError, type Config, type ServeSettings } from '../config.ts';
import type { WalletStore } from '../wallet/store.ts';
import { FileMailer, OutboxMailer, SendmailMailer, SmtpMailer, type Mail, type Mailer } from './mailer.ts';
import { MailWorker, type MailLog } from './mail-worker.ts';

/** The mailer serveSettings() chose, from the one parsed config. */
export function mailerFromConfig(
  config: Config,
  settings: ServeSettings,
  onOutbox: (mail: Mail) => void = () => {},
): Mailer {
  const { mailFrom, smtpUrl, sendmailPath, mailDir } = config.web;
  switch (settings.mailer) {
    case 'smtp':
      if (smtpUrl === null) throw new ConfigError('REGDATA_MAILER=smtp needs REGDATA_SMTP_URL');
      return new SmtpMailer(smtpUrl, mailFrom);
    case 'sendmail':
      return new SendmailMailer(sendmailPath, mailFrom);
    case 'file':
      return new FileMailer(mailDir, mailFrom);
    case 'outbox':
      return new OutboxMailer(onOutbox);
  }
}

/**
 * The start-up check of `regdata serve`: a mailer that cannot deliver makes a server that must mail
 * (settings.mailRequired) refuse to start, with the reason; elsewhere the reason is returned, to be logged
 * as a warning, and mail waits in the queue until the mailer works.
 */
export async function checkMailer(mailer: Mailer, settings: ServeSettings): Promise<string | null> {
  try {
    await mailer.check();
    return null;
  } catch (err) {
    const reason = `the ${mailer.kind} mailer (${mailer.target}) does not work: ${(err as Error).message}`;
    if (!settings.mailRequired) return reason;
    mailer.close();
    throw new ConfigError(
      `refusing to start: ${reason}. Sign-up and password-reset e-mails would wait in the queue and never ` +
        'be sent; fix REGDATA_MAILER and REGDATA_SMTP_URL (or REGDATA_SENDMAIL_PATH, REGDATA_MAIL_DIR)',
    );
  }
}

export function mailWorkerFromConfig(
  config: Config,
  store: WalletStore,
  mailer: Mailer,
  log: MailLog,
): MailWorker {
  return new MailWorker(store, mailer, { ...config.web.mailQueue, log });
}
