// The outbox: counts by status per database, the oldest pending row, the abandoned and failed
// rows with their last error, and a retry action (the same as `protean-ts outbox retry`).
import { useState } from 'preact/hooks';
import { formatAge, formatTime, html, postJson } from '../lib.js';

const STATUSES = ['pending', 'processing', 'published', 'failed', 'abandoned', 'scheduled'];

function Rows({ database, rows, title, onRetry }) {
  if (rows.length === 0) return html`<p class="note">No ${title} rows.</p>`;
  return html`
    <h3>${title[0].toUpperCase() + title.slice(1)} rows <button data-testid=${`retry-all-${title}-${database}`} onClick=${() =>
      onRetry(
        database,
        rows.map((r) => r.id),
      )}>Retry all ${rows.length}</button></h3>
    <table data-testid=${`outbox-${title}-${database}`}>
      <thead><tr><th>Id</th><th>Message</th><th>Stream</th><th>Attempts</th><th>Created</th><th>Last error</th><th></th></tr></thead>
      <tbody>${rows.map(
        (r) => html`
        <tr data-row=${r.id}>
          <td>${r.id}</td>
          <td>${r.messageType}${r.correlationId && html`<br /><a class="small" href=${`#journey?correlation=${encodeURIComponent(r.correlationId)}`}>journey</a>`}</td>
          <td>${r.targetBroker}:${r.streamName}</td><td class="num">${r.retryCount}/${r.maxRetries}</td>
          <td>${formatTime(r.createdAt)}</td><td class="error-text">${r.lastError ?? ''}</td>
          <td><button onClick=${() => onRetry(database, [r.id])}>Retry</button></td>
        </tr>`,
      )}
      </tbody>
    </table>`;
}

/** The same words as `protean-ts status`: whether back-pressure (outbox.max_consumer_lag) holds the relay to a broker back. */
function relayText(relay) {
  if (relay.error) return `Relay to ${relay.broker}: consumer lag unknown (max ${relay.maxConsumerLag}): ${relay.error}`;
  const where = relay.worst ? ` (group "${relay.worst.group}" of stream "${relay.worst.stream}")` : ' (no consumer group yet)';
  if (relay.heldBack) return `Relay to ${relay.broker} held back: lag ${relay.worst.behind} > max ${relay.maxConsumerLag}${where}; rows wait in the outbox.`;
  return `Relay to ${relay.broker} running: lag ${relay.worst?.behind ?? 0} <= max ${relay.maxConsumerLag}${where}.`;
}

export function OutboxView({ snapshot }) {
  const [message, setMessage] = useState(null);
  if (!snapshot) return html`<p class="loading">Waiting for the first sample…</p>`;
  const retry = async (database, ids) => {
    try {
      const { retried } = await postJson('/api/outbox/retry', { database, ids });
      setMessage({ ok: true, text: `${retried} row(s) of ${database} back to pending; a running server publishes them on its next tick.` });
    } catch (error) {
      setMessage({ ok: false, text: error.message });
    }
  };
  return html`
    ${message && html`<p class=${message.ok ? 'ok' : 'error'} data-testid="action-result">${message.text}</p>`}
    ${(snapshot.relays ?? []).map((relay) => html`<p class=${relay.heldBack || relay.error ? 'error' : 'note'} data-testid=${`relay-${relay.broker}`}>${relayText(relay)}</p>`)}
    ${snapshot.outbox.map(
      ({ report, abandoned, failed }) => html`
      <section data-database=${report.database}>
        <h2>Database ${report.database} <span class="note">${report.label}</span></h2>
        ${report.error && html`<p class="error">Could not read this outbox: ${report.error}</p>`}
        <div class="counts">
          ${STATUSES.map((s) => html`<div class=${`count-card ${s}`}><span class="label">${s}</span><span class="value" data-testid=${`outbox-${report.database}-${s}`}>${report[s] ?? '—'}</span></div>`)}
          <div class="count-card"><span class="label">oldest pending</span><span class="value" data-testid=${`outbox-${report.database}-oldest`}>${formatAge(report.oldestPendingAgeMs)}</span></div>
        </div>
        <${Rows} database=${report.database} rows=${abandoned} title="abandoned" onRetry=${retry} />
        <${Rows} database=${report.database} rows=${failed} title="failed" onRetry=${retry} />
      </section>`,
    )}`;
}
