import type { Endpoint } from '../../webhooks/endpoints.ts';
import type { DeliveryInfo } from '../../webhooks/deliverer.ts';
import { creditsHtml, csrfField, formatDate, html, type SafeHtml } from '../html.ts';

/** The Webhooks page (issue 31): where the account's watchlist events are pushed, and how that went. */
export interface WebhooksView {
  endpoints: { endpoint: Endpoint; log: DeliveryInfo[] }[];
  csrfToken: string;
  /** Single-use token of the add form: a double submit adds one endpoint. */
  once: string;
  notice: SafeHtml | string;
  /** The URL typed into the add form and why it was refused, kept on a refusal. */
  form: { url: string; error: string | null };
  /** False when this server sends no webhooks: the page says so. */
  served: boolean;
}

/** Deliveries shown per endpoint; the REST log has 100. */
export const LOG_SHOWN = 20;

export function webhooksBody(v: WebhooksView): SafeHtml {
  if (!v.served) {
    return html`<h1>Webhooks</h1>
      <p>This server does not send webhooks.</p>`;
  }
  return html`<h1>Webhooks</h1>
    ${v.notice}
    <p>
      Your watchlists' events are POSTed to each endpoint as they are published, signed per the Standard
      Webhooks specification with the endpoint's secret. An event costs its row price once, however often it
      is sent; failed attempts are free and retried for about 27 hours. They can also be pulled from
      <code>GET /api/v1/data/events</code>. <a href="/dashboard/watchlists">Your watchlists</a>.
    </p>
    <section aria-labelledby="add-h">
      <h2 id="add-h">Add an endpoint</h2>
      <form method="post" action="/dashboard/webhooks" class="stack">
        ${csrfField(v.csrfToken)}
        <input type="hidden" name="_once" value="${v.once}" />
        ${v.form.error ? html`<p class="error" role="alert" id="url-error">${v.form.error}</p>` : ''}
        <div class="field">
          <label for="url">Endpoint URL (https, on a public address)</label>
          <input
            id="url"
            name="url"
            type="url"
            required
            maxlength="2000"
            value="${v.form.url}"
            ${v.form.error ? html`aria-describedby="url-error"` : ''}
          />
        </div>
        <p><button type="submit">Add endpoint</button></p>
      </form>
    </section>
    <section aria-labelledby="endpoints-h">
      <h2 id="endpoints-h">Endpoints</h2>
      ${v.endpoints.length === 0 ? html`<p>No endpoint yet.</p>` : v.endpoints.map((e) => endpointBlock(e, v.csrfToken))}
    </section>`;
}

function endpointBlock(e: { endpoint: Endpoint; log: DeliveryInfo[] }, csrfToken: string): SafeHtml {
  const { endpoint: ep, log } = e;
  const action = (path: string, label: string, cls = '') =>
    html`<form method="post" action="/dashboard/webhooks/${ep.id}/${path}" class="inline">
      ${csrfField(csrfToken)}<button type="submit" class="${cls}">${label}</button>
    </form>`;
  return html`<article class="endpoint" aria-labelledby="ep-${ep.id}">
    <h3 id="ep-${ep.id}"><code class="wrap-any">${ep.url}</code></h3>
    <p>
      Added ${formatDate(ep.created_at)}.
      ${
        ep.disabled_at
          ? html`<strong>Switched off</strong> ${formatDate(ep.disabled_at)}: ${ep.disabled_reason ?? ''}`
          : 'Receiving events.'
      }
    </p>
    <div class="row">
      ${ep.disabled_at ? action('enable', 'Switch back on') : ''} ${action('rotate', 'New secret')}
      ${action('delete', 'Delete', 'danger')}
    </div>
    ${log.length === 0 ? html`<p>No delivery yet.</p>` : deliveryTable(ep.id, log, csrfToken)}
  </article>`;
}

function deliveryTable(endpointId: string, log: DeliveryInfo[], csrfToken: string): SafeHtml {
  // tabindex: on a phone the table scrolls sideways inside its own box, which the keyboard must reach.
  return html`<div class="scroll">
    <table class="deliveries" tabindex="0">
      <caption>
        Last deliveries, newest first
      </caption>
      <thead>
        <tr>
          <th scope="col">Event</th>
          <th scope="col">State</th>
          <th scope="col">Attempts</th>
          <th scope="col">Last answer</th>
          <th scope="col">Credits</th>
          <th scope="col">Replay</th>
        </tr>
      </thead>
      <tbody>
        ${log.slice(0, LOG_SHOWN).map(
          (d) =>
            html`<tr>
              <td><code class="wrap-any">${d.event_id}</code></td>
              <td>
                ${d.state}${d.next_at ? html`, next <span class="nowrap">${formatDate(d.next_at)}</span>` : ''}
              </td>
              <td>${String(d.attempts)}</td>
              <td>${d.last_error ?? (d.last_status === null ? '' : String(d.last_status))}</td>
              <td>${creditsHtml(d.charged)}</td>
              <td>
                ${
                  d.state === 'sending'
                    ? ''
                    : html`<form
                        method="post"
                        action="/dashboard/webhooks/${endpointId}/replay"
                        class="inline"
                      >
                        ${csrfField(csrfToken)}<input type="hidden" name="delivery" value="${String(d.id)}" />
                        <button type="submit">Send again</button>
                      </form>`
                }
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/** The secret, shown this once, after adding an endpoint or rotating its secret. */
export function secretNotice(url: string, secret: string, rotated: boolean): SafeHtml {
  return html`<section class="newkey" aria-labelledby="secret-h">
    <h2 id="secret-h" tabindex="-1">${rotated ? 'New secret' : 'Endpoint added'}</h2>
    <p>
      The signing secret of <code class="wrap-any">${url}</code> is shown this once: keep it where your
      receiver verifies signatures.${rotated ? ' The previous secret also signs for 24 hours.' : ''}
    </p>
    <p class="row">
      <input id="new-secret" readonly value="${secret}" aria-label="Signing secret" />
      <button type="button" data-copy="new-secret">Copy</button>
    </p>
  </section>`;
}

/** Deleting drops the queued deliveries: the first click only asks. */
export function deleteEndpointQuestion(ep: Endpoint, csrfToken: string): SafeHtml {
  return html`<section class="confirm" aria-labelledby="confirm-h">
    <h2 id="confirm-h" tabindex="-1">Delete the endpoint <code class="wrap-any">${ep.url}</code>?</h2>
    <p>Events are no longer sent there; deliveries not yet made are dropped, unbilled.</p>
    <form method="post" action="/dashboard/webhooks/${ep.id}/delete" class="row">
      ${csrfField(csrfToken)}
      <input type="hidden" name="confirm" value="yes" />
      <button type="submit" class="danger">Yes, delete it</button>
      <a href="/dashboard/webhooks">Cancel, keep it</a>
    </form>
  </section>`;
}
