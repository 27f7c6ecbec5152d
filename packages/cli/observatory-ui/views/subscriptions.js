// Subscriptions: per consumer group its pending, lag and dead letters; a group's dead letters
// can be inspected, replayed (all or one) and purged, as `protean-ts dlq` does.
import { useEffect, useState } from 'preact/hooks';
import { formatTime, getJson, html, postJson } from '../lib.js';

function DeadLetters({ subscription, stream, count, onClose, onResult }) {
  const [state, setState] = useState({ loading: true, data: null, error: null });
  const load = () =>
    getJson(`/api/dead-letters?subscription=${encodeURIComponent(subscription)}&stream=${encodeURIComponent(stream)}`).then(
      (data) => setState({ loading: false, data, error: null }),
      (error) => setState({ loading: false, data: null, error: error.message }),
    );
  // Re-read when the live count changes: a letter added or replayed elsewhere shows up here too.
  useEffect(() => void load(), [count]);
  const act = async (path, payload, describe) => {
    try {
      onResult({ ok: true, text: describe(await postJson(path, payload)) });
    } catch (error) {
      onResult({ ok: false, text: error.message });
    }
    await load();
  };
  const replay = (ids) =>
    act(
      '/api/dead-letters/replay',
      ids ? { subscription, stream, ids } : { subscription, stream },
      (r) =>
        `${r.replayed} dead letter(s) of ${subscription} published back to their stream${r.skipped.length ? `; ${r.skipped.length} undecodable left in place` : ''}.`,
    );
  const purge = () => {
    if (!confirm(`Delete every dead letter of ${subscription}'s stream? This cannot be undone.`)) return;
    return act('/api/dead-letters/purge', { subscription, stream }, (r) => `${r.purged} dead letter(s) deleted.`);
  };
  if (state.loading) return html`<section class="panel"><p class="loading">Reading dead letters…</p></section>`;
  if (state.error) return html`<section class="panel"><p class="error">${state.error}</p></section>`;
  const { data } = state;
  return html`
    <section class="panel" data-testid="dead-letters">
      <h2>Dead letters of ${subscription} <span class="note">stream ${data.stream}, ${data.total} in all</span>
        <button onClick=${onClose}>Close</button></h2>
      ${data.total === 0 && html`<p class="note">No dead letters.</p>`}
      ${
        data.total > 0 &&
        html`<p>
        <button data-testid="replay-all" onClick=${() => replay()}>Replay all</button>
        <button data-testid="purge" class="danger" onClick=${purge}>Purge</button></p>`
      }
      ${data.letters.map(
        (l) => html`
        <article class="letter" data-letter=${l.id}>
          <header>
            <strong>${l.messageType ?? 'undecodable entry'}</strong> <span class="note">${l.id} · failed ${formatTime(l.failedAt)} · ${l.deliveryCount} deliveries</span>
            ${l.correlationId && html` <a href=${`#journey?correlation=${encodeURIComponent(l.correlationId)}`}>journey</a>`}
            <button data-testid=${`replay-${l.id}`} onClick=${() => replay([l.id])}>Replay</button>
          </header>
          <pre class="error-text">${l.error}</pre>
          <pre>${JSON.stringify(l.payload, null, 2)}</pre>
        </article>`,
      )}
    </section>`;
}

export function SubscriptionsView({ snapshot }) {
  const [open, setOpen] = useState(null);
  const [message, setMessage] = useState(null);
  if (!snapshot) return html`<p class="loading">Waiting for the first sample…</p>`;
  const show = (value) => (value === null || value === undefined ? '—' : value);
  return html`
    ${message && html`<p class=${message.ok ? 'ok' : 'error'} data-testid="action-result">${message.text}</p>`}
    <section>
      <h2>Subscriptions</h2>
      <table data-testid="subscriptions">
        <thead><tr><th>Subscription</th><th>Kind</th><th>Reads</th><th>Pending</th><th>Lag / behind</th><th>Consumers</th><th>Dead letters</th><th></th></tr></thead>
        <tbody>${snapshot.subscriptions.map(
          (s) => html`
          <tr data-subscription=${s.subscription} data-source=${s.source}>
            <td>${s.subscription}${s.error && html`<div class="error-text">${s.error}</div>`}</td><td>${s.role}</td>
            <td>${s.source === 'event_store' ? `event store ${s.category}` : `${s.broker}:${s.stream}`}${s.source === 'stream' && !s.exists ? html` <span class="note">(no group yet)</span>` : ''}</td>
            <td class="num" data-col="pending" title=${s.pendingLocalOnly ? `unknown: the broker shows only this process's unacked messages; set brokers.${s.broker}.management_uri` : ''}>${s.source === 'stream' ? (s.pendingLocalOnly ? '?' : show(s.pending)) : '—'}</td>
            <td class="num" data-col="lag">${s.source === 'stream' ? show(s.lag) : `${s.behind}${s.behindCapped ? '+' : ''}`}</td>
            <td class="num" data-col="consumers">${s.source === 'stream' ? show(s.consumers) : (s.owner ?? 'none')}</td>
            <td class=${`num ${s.deadLetters > 0 ? 'error' : ''}`} data-col="dead-letters">${show(s.deadLetters)}</td>
            <td>${s.source === 'stream' && s.deadLetters !== null && html`<button data-testid=${`inspect-${s.subscription}`} onClick=${() => setOpen({ subscription: s.subscription, stream: s.stream })}>Dead letters</button>`}</td>
          </tr>`,
        )}
        </tbody>
      </table>
      ${
        snapshot.subscriptions.some((s) => s.lostToTrimming > 0) &&
        html`<p class="error">Some groups lost messages to the stream's hard length limit: ${snapshot.subscriptions
          .filter((s) => s.lostToTrimming > 0)
          .map((s) => `${s.subscription} ${s.lostToTrimming}`)
          .join(', ')}.</p>`
      }
      ${
        snapshot.subscriptions.some((s) => s.circuits?.length) &&
        html`<p class="error" data-testid="open-circuits">Circuit breakers not closed (messages wait, nothing is dead-lettered): ${snapshot.subscriptions
          .filter((s) => s.circuits?.length)
          .flatMap((s) =>
            s.circuits.map((c) => `${s.subscription} ${c.state} in ${c.worker} since ${formatTime(c.changedAt)}${c.lastError ? ` (${c.lastError})` : ''}`),
          )
          .join('; ')}.</p>`
      }
    </section>
    ${open && html`<${DeadLetters} key=${`${open.subscription} ${open.stream}`} subscription=${open.subscription} stream=${open.stream} count=${snapshot.subscriptions.find((s) => s.subscription === open.subscription && s.stream === open.stream)?.deadLetters} onClose=${() => setOpen(null)} onResult=${setMessage} />`}`;
}
