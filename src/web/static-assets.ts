import crypto from 'node:crypto';
import fs from 'node:fs';

/**
 * The dashboard's script, style sheet and icon. Pages link them with a content hash (`?v=`), so a browser
 * keeps them for a year and never asks again while they are unchanged; a new release changes the hash and
 * so the URL. Without the hash, every page re-downloaded 52 KB and, on a busy server, was shown (and could
 * be read by a test) before its style and script had arrived.
 */

export interface StaticAsset {
  type: string;
  body: Buffer;
  /** The first 16 hex digits of the body's SHA-256: the `v` of the linked URL and the ETag. */
  hash: string;
}

const FILES: Record<string, string> = {
  'app.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
};

const ASSETS: ReadonlyMap<string, StaticAsset> = new Map(
  Object.entries(FILES).map(([name, type]) => {
    const body = fs.readFileSync(new URL(`./static/${name}`, import.meta.url));
    return [name, { type, body, hash: crypto.createHash('sha256').update(body).digest('hex').slice(0, 16) }];
  }),
);

export const staticAsset = (name: string): StaticAsset | undefined => ASSETS.get(name);

/** The URL a page links an asset by: it changes whenever the file does. */
export function assetUrl(name: keyof typeof FILES & string): string {
  const asset = ASSETS.get(name);
  if (!asset) throw new Error(`no static asset ${name}`);
  return `/static/${name}?v=${asset.hash}`;
}
