import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { walletOptions } from '../../src/wallet/from-config.ts';
import { parseWalletUrl, redactUrl } from '../../src/wallet/store.ts';

/** REGDATA_WALLET_URL: one variable picks the backend; SQLite stays the default. */
describe('REGDATA_WALLET_URL', () => {
  it('defaults to wallet.db in the data folder, and keeps REGDATA_WALLET_DB as the older spelling', () => {
    const plain = loadConfig({ REGDATA_DATA_DIR: '/srv/regdata' });
    expect(plain.wallet).toMatchObject({
      url: 'sqlite:/srv/regdata/wallet.db',
      dbPath: '/srv/regdata/wallet.db',
    });
    const legacy = loadConfig({ REGDATA_WALLET_DB: 'w/ledger.db' });
    expect(legacy.wallet.url).toBe(`sqlite:${path.resolve('w/ledger.db')}`);
  });

  it('takes sqlite:<path> (made absolute) and postgres:// URLs, and says what it expects otherwise', () => {
    expect(loadConfig({ REGDATA_WALLET_URL: 'sqlite:rel/w.db' }).wallet.dbPath).toBe(
      path.resolve('rel/w.db'),
    );
    const pg = loadConfig({ REGDATA_WALLET_URL: 'postgres://app:secret@db.internal:5432/regdata' });
    expect(pg.wallet).toMatchObject({ url: 'postgres://app:secret@db.internal:5432/regdata', dbPath: null });
    expect(walletOptions(pg)).toMatchObject({
      url: 'postgres://app:secret@db.internal:5432/regdata',
      poolSize: 10,
    });
    expect(() => loadConfig({ REGDATA_WALLET_URL: 'mysql://db/regdata' })).toThrow(ConfigError);
    expect(() => loadConfig({ REGDATA_WALLET_URL: 'mysql://db/regdata' })).toThrow(
      /sqlite:<path> or postgres:\/\//,
    );
  });

  it('parses both forms and never shows a password in messages', () => {
    expect(parseWalletUrl('postgresql://u@h/d')).toEqual({ kind: 'postgres', url: 'postgresql://u@h/d' });
    expect(parseWalletUrl('sqlite:/a/b.db')).toEqual({ kind: 'sqlite', path: '/a/b.db' });
    expect(parseWalletUrl('/a/b.db')).toEqual({ kind: 'sqlite', path: '/a/b.db' });
    expect(redactUrl('postgres://app:secret@h:5432/d')).toBe('postgres://app:***@h:5432/d');
  });
});
