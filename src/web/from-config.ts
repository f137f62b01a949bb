import type { Config, ServeSettings } from '../config.ts';
import { Identity } from '../identity/identity.ts';
import { OutboxMailer, SendmailMailer, type Mailer } from '../identity/mailer.ts';
import { InvoiceProvider } from '../identity/payments.ts';
import type { Wallet } from '../wallet/wallet.ts';
import type { WebDeps } from './context.ts';

/**
 * The dashboard's parts from the one parsed config and the settings serveSettings() decided; `close`
 * releases the identity connection.
 */
export function webDeps(
  config: Config,
  settings: ServeSettings,
  wallet: Wallet,
  log: (msg: string) => void,
): { deps: WebDeps; close: () => Promise<void> } {
  const mailer: Mailer =
    settings.mailer === 'sendmail'
      ? new SendmailMailer(config.web.mailFrom)
      : // The log says a message is waiting; the link (a secret) stays out of the log.
        new OutboxMailer((mail) => log(`mail to ${mail.to}: ${mail.subject} (see /dev/outbox)`));
  // The wallet's own store: sessions and users live in the same database, whichever backend it is.
  const identity = new Identity({ store: wallet.store });
  return {
    deps: {
      wallet,
      identity,
      mailer,
      payments: new InvoiceProvider(),
      publicUrl: config.web.publicUrl,
      cookieSecure: settings.cookieSecure,
    },
    close: () => identity.close(),
  };
}
