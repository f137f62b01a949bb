import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The dashboard's scripts (native ES modules, no build step), style sheet and icon. Pages link them with a
 * content hash (`?v=`), so a browser keeps them for a year and never asks again while they are unchanged; a
 * new release changes the hash and so the URL. Without the hash, every page re-downloaded its script and
 * style and, on a busy server, was shown (and could be read by a test) before they had arrived.
 *
 * A module's relative imports are served with the hash of the module they name (`./dom.js` becomes
 * `./dom.js?v=…`), and a module's own hash covers those rewritten imports, so a change anywhere in the graph
 * changes every URL above it, and no module is ever fetched again just to ask whether it changed.
 */

export interface StaticAsset {
  type: string;
  body: Buffer;
  /** The first 16 hex digits of the served body's SHA-256: the `v` of the linked URL and the ETag. */
  hash: string;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

const ROOT = new URL('./static/', import.meta.url);

/** `from './x.js'`, `import './x.js'`, `import('./x.js')`: the relative specifiers a module names. */
const RELATIVE_IMPORT = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.\.?\/[^'"]+)\2/g;

const hashOf = (body: Buffer) => crypto.createHash('sha256').update(body).digest('hex').slice(0, 16);

/** Every file under static/, by its path there ('app.js', 'js/search/state.js'). */
function sourceFiles(): Map<string, Buffer> {
  const dir = fs.realpathSync(ROOT);
  const names = fs.readdirSync(dir, { recursive: true, encoding: 'utf8' });
  const out = new Map<string, Buffer>();
  for (const name of names.sort()) {
    const file = path.join(dir, name);
    if (!fs.statSync(file).isFile() || !(path.extname(name) in TYPES)) continue;
    out.set(name.split(path.sep).join('/'), fs.readFileSync(file));
  }
  return out;
}

/** The assets as served: each module's relative imports carry the hash of what they import. */
function buildAssets(): Map<string, StaticAsset> {
  const sources = sourceFiles();
  const built = new Map<string, StaticAsset>();
  const visiting = new Set<string>();
  const build = (name: string, from: string): StaticAsset => {
    const done = built.get(name);
    if (done) return done;
    const source = sources.get(name);
    if (!source) throw new Error(`static/${from} imports static/${name}, which does not exist`);
    if (visiting.has(name)) throw new Error(`static/${name} is part of an import cycle`);
    visiting.add(name);
    let body = source;
    if (name.endsWith('.js')) {
      const text = source
        .toString('utf8')
        .replace(RELATIVE_IMPORT, (_all, lead: string, quote: string, spec: string) => {
          const target = path.posix.normalize(path.posix.join(path.posix.dirname(name), spec));
          return `${lead}${quote}${spec}?v=${build(target, name).hash}${quote}`;
        });
      body = Buffer.from(text, 'utf8');
    }
    visiting.delete(name);
    const asset = { type: TYPES[path.extname(name)]!, body, hash: hashOf(body) };
    built.set(name, asset);
    return asset;
  };
  for (const name of sources.keys()) build(name, name);
  return built;
}

const ASSETS: ReadonlyMap<string, StaticAsset> = buildAssets();

export const staticAsset = (name: string): StaticAsset | undefined => ASSETS.get(name);

/** The URL a page links an asset by: it changes whenever the file, or a module it imports, does. */
export function assetUrl(name: string): string {
  const asset = ASSETS.get(name);
  if (!asset) throw new Error(`no static asset ${name}`);
  return `/static/${name}?v=${asset.hash}`;
}

/** The hashed URLs of every module, for `<link rel="modulepreload">`: fetched at once, not import by import. */
export function moduleUrls(): string[] {
  return [...ASSETS.keys()].filter((n) => n.endsWith('.js')).map(assetUrl);
}
