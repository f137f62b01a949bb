import { assetUrl, moduleUrls } from './static-assets.ts';

/**
 * Server-rendered HTML with escaping by construction: every interpolated value is escaped unless it is
 * already a SafeHtml made by `html`, so user data (company names, key names, e-mails) cannot inject markup.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function esc(text: unknown): string {
  return String(text ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

type Part = SafeHtml | string | number | null | undefined | false | readonly Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof SafeHtml) return part.value;
  if (Array.isArray(part)) return part.map(render).join('');
  return esc(part);
}

export function html(strings: TemplateStringsArray, ...values: Part[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((v, i) => {
    out += render(v) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
}

/** JSON for a `<script type="application/json">` block: `<` escaped so no value can close the element. */
export function jsonBlock(id: string, value: unknown): SafeHtml {
  const text = JSON.stringify(value).replace(/</g, '\\u003c');
  return new SafeHtml(`<script type="application/json" id="${esc(id)}">${text}</script>`);
}

export interface LayoutOptions {
  title: string;
  /** Signed-in e-mail, for the header; null on public pages. */
  email: string | null;
  csrfToken: string;
  active?: string;
  scripts?: boolean;
}

const NAV = [
  ['/dashboard', 'Overview'],
  ['/dashboard/keys', 'API keys'],
  ['/dashboard/clients', 'Connected clients'],
  ['/search', 'Search'],
  ['/dashboard/watchlists', 'Watchlists'],
  ['/dashboard/webhooks', 'Webhooks'],
  ['/dashboard/billing', 'Plans and top-ups'],
] as const;

/**
 * Every page: the header (the name, the main links, and when signed in the account and Sign out) and the
 * page's body. The header is one grid for both states, so signed in or out the name keeps its own cell and
 * nothing is placed over anything else.
 */
export function layout(opts: LayoutOptions, body: SafeHtml): string {
  const links: readonly (readonly [string, string])[] = opts.email
    ? NAV
    : [
        ['/signin', 'Sign in'],
        ['/signup', 'Sign up'],
        ['/docs', 'API docs'],
      ];
  const account = opts.email
    ? html`<form method="post" action="/signout" class="account">
        <input type="hidden" name="_csrf" value="${opts.csrfToken}" />
        <span class="who">${opts.email}</span> <button type="submit">Sign out</button>
      </form>`
    : '';
  // The modules are preloaded by their hashed URLs, so the browser fetches them at once rather than one
  // import at a time.
  const scripts = opts.scripts
    ? html`${moduleUrls().map((url) => html`<link rel="modulepreload" href="${url}" />`)}
        <script type="module" src="${assetUrl('app.js')}"></script>`
    : '';
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="csrf-token" content="${opts.csrfToken}" />
        <title>${opts.title} · regdata</title>
        <link rel="icon" href="${assetUrl('favicon.svg')}" type="image/svg+xml" />
        <link rel="stylesheet" href="${assetUrl('style.css')}" />
        ${scripts}
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header>
          <a class="brand" href="/">regdata</a>
          <nav aria-label="Main">
            <ul>
              ${links.map(
                ([href, label]) =>
                  html`<li>
                    <a href="${href}" ${opts.active === href ? html`aria-current="page"` : ''}>${label}</a>
                  </li>`,
              )}
            </ul>
          </nav>
          ${account}
        </header>
        <main id="main">${body}</main>
      </body>
    </html>`.value;
}

export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${token}" />`;
}

export function formatCredits(n: number): string {
  return n.toFixed(2);
}

/**
 * An amount of credits as the page's script rewrites it in the reader's locale (thousands separators and
 * decimal mark from the browser's language); without the script it reads as 1234.50.
 */
export function creditsHtml(n: number): SafeHtml {
  return html`<span data-credits="${n}">${formatCredits(n)}</span>`;
}

export function formatDate(iso: string | null): string {
  return iso ? iso.replace('T', ' ').slice(0, 16) + ' UTC' : '—';
}
