import type { Config, ServeSettings } from '../config.ts';
import { mailWorkerFromConfig } from '../identity/from-config.ts';
import { Identity } from '../identity/identity.ts';
import type { MailLog } from '../identity/mail-worker.ts';
import type { Mailer } from '../identity/mailer.ts';
import { InvoiceProvider } from '../identity/payments.ts';
import type { Wallet } from '../wallet/wallet.ts';
import type { WebDeps } from './context.ts';

/**
 * The dashboard's parts from the one parsed config and the settings serveSettings() decided, around the
 * mailer the server checked. The mail worker is started by the caller once it listens; `close` stops it,
 * closes the mailer and releases the identity connection.
 */
export function webDeps(
  config: Config,
  settings: ServeSettings,
  wallet: Wallet,
  mailer: Mailer,
  log: MailLog,
): { deps: WebDeps; close: () => Promise<void> } {
  // The wallet's own store: sessions, users and queued mail live in the same database, whichever backend.
  const identity = new Identity({ store: wallet.store });
  const mail = mailWorkerFromConfig(config, wallet.store, mailer, log);
  return {
    deps: {
      wallet,
      identity,
      mail,
      payments: new InvoiceProvider(),
      publicUrl: config.web.publicUrl,
      cookieSecure: settings.cookieSecure,
      oauthLoopbackClients: config.devMode,
    },
    close: async () => {
      await mail.stop();
      mailer.close();
      await identity.close();
    },
  };
}
