import type { ConnectedClient } from '../../oauth/authorization-server.ts';
import { csrfField, formatDate, html, type SafeHtml } from '../html.ts';
import { statusNotice } from './notices.ts';

export interface ClientsView {
  /** The connected ones: revoked grants are not listed. */
  clients: ConnectedClient[];
  csrfToken: string;
  /** Above the table: a question or an outcome. */
  notice: SafeHtml | string;
}

/** The Connected clients page: the MCP clients the account allowed, with their last use and a revoke button. */
export function clientsBody(v: ClientsView): SafeHtml {
  return html`<h1>Connected clients</h1>
    ${v.notice}
    <p>
      MCP clients that you allowed to act for this account by signing in (OAuth). Their metered calls are
      charged to this account’s credits as calls with an API key are. Revoking one disconnects it at its next
      call; it can ask you to sign in again.
    </p>
    <table id="clients" tabindex="0">
      <caption>
        Clients
      </caption>
      <thead>
        <tr>
          <th scope="col">Client</th>
          <th scope="col">Scopes</th>
          <th scope="col">Connected</th>
          <th scope="col">Last used</th>
          <th scope="col">Access</th>
        </tr>
      </thead>
      <tbody>
        ${
          v.clients.length === 0
            ? html`<tr>
                <td colspan="5">No client is connected.</td>
              </tr>`
            : ''
        }
        ${v.clients.map((c) => clientRow(c, v.csrfToken))}
      </tbody>
    </table>`;
}

/** A client's name as it gave it, else its id (a metadata document's URL, or a registered id). */
const nameOf = (c: ConnectedClient) => c.clientName ?? c.clientId;

function clientRow(c: ConnectedClient, csrfToken: string): SafeHtml {
  return html`<tr data-grant-id="${c.grantId}">
    <td>
      <strong>${nameOf(c)}</strong><br />
      <code class="client-id">${c.clientId}</code>
    </td>
    <td>${c.scopes.map((s) => html`<code>${s}</code> `)}</td>
    <td>${formatDate(c.createdAt)}</td>
    <td>${c.lastUsedAt ? formatDate(c.lastUsedAt) : 'never'}</td>
    <td>
      <form method="post" action="/dashboard/clients/${c.grantId}/revoke" class="inline">
        ${csrfField(csrfToken)}
        <button type="submit" class="danger" aria-label="Revoke ${nameOf(c)}">Revoke</button>
      </form>
    </td>
  </tr>`;
}

/** Revoking cannot be undone: the first click only asks. */
export function revokeClientQuestion(c: ConnectedClient, csrfToken: string): SafeHtml {
  return html`<section class="confirm" aria-labelledby="confirm-h">
    <h2 id="confirm-h" tabindex="-1">Disconnect ${nameOf(c)}?</h2>
    <p>Its next call is refused (401), and its tokens cannot be refreshed. This cannot be undone.</p>
    <form method="post" action="/dashboard/clients/${c.grantId}/revoke" class="row">
      ${csrfField(csrfToken)}
      <input type="hidden" name="confirm" value="yes" />
      <button type="submit" class="danger">Yes, revoke ${nameOf(c)}</button>
      <a href="/dashboard/clients">Cancel, keep it connected</a>
    </form>
  </section>`;
}

/** After a revocation: which client, and when, since its row has left the list. */
export function revokedNotice(c: ConnectedClient): SafeHtml {
  return statusNotice(`${nameOf(c)} was disconnected ${formatDate(c.revokedAt)}; its tokens no longer work.`);
}
