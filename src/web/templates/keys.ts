import type { KeyInfo } from '../../wallet/wallet.ts';
import type { KeyMode } from '../../wallet/types.ts';
import { csrfField, formatDate, html, type SafeHtml } from '../html.ts';

export interface KeysView {
  keys: KeyInfo[];
  csrfToken: string;
  /** Above the form: the new key, a question, or an error. */
  notice: SafeHtml | string;
}

/** The API keys page: how to send a key, the creation form, and the account's keys with a revoke button. */
export function keysBody(v: KeysView): SafeHtml {
  return html`<h1>API keys</h1>
    ${v.notice}
    <p>
      Send a key as <code>Authorization: Bearer &lt;key&gt;</code> to the REST API (<a href="/docs">docs</a>)
      or the MCP server. Keep keys on your server; never put them in a browser or mobile app.
    </p>
    <p>
      A <strong>live</strong> key (<code>rgd_…</code>) reads the registers' data and is charged. A
      <strong>test</strong> key (<code>rgd_test_…</code>) answers every endpoint and MCP tool from a small
      synthetic world, is never charged and has a rate limit of its own: for your CI and development.
    </p>
    <form method="post" action="/dashboard/keys" class="row">
      ${csrfField(v.csrfToken)}
      <label for="key-name">Name</label>
      <input id="key-name" name="name" required maxlength="80" placeholder="e.g. CRM sync" />
      <fieldset class="row">
        <legend>Kind</legend>
        <label><input type="radio" name="mode" value="live" checked /> Live</label>
        <label><input type="radio" name="mode" value="test" /> Test</label>
      </fieldset>
      <button type="submit">Create API key</button>
    </form>
    <table id="keys" tabindex="0">
      <caption>
        Your keys
      </caption>
      <thead>
        <tr>
          <th scope="col">Key</th>
          <th scope="col">Kind</th>
          <th scope="col">Name</th>
          <th scope="col">Created</th>
          <th scope="col">Last used</th>
          <th scope="col">Status</th>
        </tr>
      </thead>
      <tbody>
        ${
          v.keys.length === 0
            ? html`<tr>
                <td colspan="6">No keys yet.</td>
              </tr>`
            : ''
        }
        ${v.keys.map((k) => keyRow(k, v.csrfToken))}
      </tbody>
    </table>`;
}

function keyRow(k: KeyInfo, csrfToken: string): SafeHtml {
  return html`<tr data-key-id="${k.keyId}">
    <td><code>${keyPrefix(k.mode)}…${k.hint}</code></td>
    <td>${k.mode === 'test' ? 'test' : 'live'}</td>
    <td>${k.name ?? ''}</td>
    <td>${formatDate(k.createdAt)}</td>
    <td>${k.lastUsedAt ? formatDate(k.lastUsedAt) : 'never'}</td>
    <td>
      ${
        k.revokedAt
          ? html`revoked ${formatDate(k.revokedAt)}`
          : html`<form method="post" action="/dashboard/keys/${k.keyId}/revoke" class="inline">
              ${csrfField(csrfToken)}
              <button type="submit" class="danger" aria-label="Revoke key ${k.name ?? k.hint}">
                Revoke key
              </button>
            </form>`
      }
    </td>
  </tr>`;
}

/** How a listing shows a key: its prefix (which tells the kind) and its last four characters. */
function keyPrefix(mode: KeyMode): string {
  return mode === 'test' ? 'rgd_test_' : 'rgd_';
}

/** The secret, in this one response and nowhere else (only its hash is stored). */
export function newKeyNotice(key: string, mode: KeyMode = 'live'): SafeHtml {
  return html`<section class="newkey" aria-labelledby="newkey-h">
    <h2 id="newkey-h">Your new ${mode === 'test' ? 'test' : 'live'} API key</h2>
    <p>
      Copy it now: it is shown only this
      once.${mode === 'test' ? ' It reads the synthetic test world only and is never charged.' : ''}
    </p>
    <p class="row">
      <input id="new-key" readonly value="${key}" aria-label="New API key" />
      <button type="button" data-copy="new-key">Copy</button>
    </p>
  </section>`;
}

/** Revoking cannot be undone and breaks every client using the key at once: the first click only asks. */
export function revokeQuestion(key: KeyInfo, csrfToken: string): SafeHtml {
  const keyName = key.name ?? `${keyPrefix(key.mode)}…${key.hint}`;
  return html`<section class="confirm" aria-labelledby="confirm-h">
    <h2 id="confirm-h" tabindex="-1">Revoke key ${keyName}?</h2>
    <p>Every program using this key gets 401 from its next call on. This cannot be undone.</p>
    <form method="post" action="/dashboard/keys/${key.keyId}/revoke" class="row">
      ${csrfField(csrfToken)}
      <input type="hidden" name="confirm" value="yes" />
      <button type="submit" class="danger">Yes, revoke key ${keyName}</button>
      <a href="/dashboard/keys">Cancel, keep the key</a>
    </form>
  </section>`;
}
