// Live message flow: published per second per stream (outbox), accounted for per second per
// subscription (inbox), with the last minute of samples as bars.
import { useRef } from 'preact/hooks';
import { formatRate, html, Unread } from '../lib.js';

const HISTORY = 30;

function Bars({ values }) {
  const max = Math.max(1, ...values);
  return html`<svg class="bars" viewBox=${`0 0 ${HISTORY * 4} 20`} preserveAspectRatio="none">
    ${values.map((v, i) => html`<rect x=${(HISTORY - values.length + i) * 4} y=${20 - (v / max) * 20} width="3" height=${(v / max) * 20} />`)}
  </svg>`;
}

export function FlowView({ snapshot }) {
  const history = useRef({ at: null, streams: new Map(), subscriptions: new Map() });
  if (!snapshot) return html`<p class="loading">Waiting for the first sample…</p>`;
  const { flow } = snapshot;
  const h = history.current;
  if (h.at !== flow.sampledAt) {
    h.at = flow.sampledAt;
    const push = (map, key, value) => map.set(key, [...(map.get(key) ?? []), value ?? 0].slice(-HISTORY));
    for (const s of flow.streams) push(h.streams, `${s.database}:${s.stream}`, s.perSecond);
    for (const s of flow.subscriptions) push(h.subscriptions, s.subscription, s.perSecond);
  }
  const totalPublished = flow.streams.reduce((n, s) => n + s.perSecond, 0);
  const totalHandled = flow.subscriptions.reduce((n, s) => n + (s.perSecond ?? 0), 0);
  return html`
    <section>
      <h2>Published <span class="big" data-testid="published-rate">${formatRate(totalPublished)}/s</span></h2>
      <p class="note">Outbox rows published in the last ${flow.windowSeconds} s, per stream.</p>
      <table data-testid="flow-streams">
        <thead><tr><th>Stream</th><th>Database</th><th>Published (${flow.windowSeconds} s)</th><th>Per second</th><th>Last minute</th></tr></thead>
        <tbody>
          ${flow.streams.length === 0 && html`<tr><td colspan="5" class="note">Nothing published in the last ${flow.windowSeconds} s.</td></tr>`}
          ${flow.streams.map((s) => html`<tr data-stream=${s.stream}><td>${s.stream}</td><td>${s.database}</td><td class="num">${s.published}</td><td class="num">${formatRate(s.perSecond)}</td><td><${Bars} values=${h.streams.get(`${s.database}:${s.stream}`) ?? []} /></td></tr>`)}
        </tbody>
      </table>
    </section>
    <section>
      <h2>Handled <span class="big" data-testid="handled-rate">${formatRate(totalHandled)}/s</span></h2>
      <p class="note">Messages each subscription accounted for since the previous sample (inbox checkpoints and handled-message records).</p>
      <table data-testid="flow-subscriptions">
        <thead><tr><th>Subscription</th><th>Per second</th><th>Total accounted for</th><th>Last minute</th></tr></thead>
        <tbody>
          ${flow.subscriptions.map((s) => html`<tr data-subscription=${s.subscription}><td>${s.subscription}</td><td class="num">${formatRate(s.perSecond)}</td><td class="num">${s.total}</td><td><${Bars} values=${h.subscriptions.get(s.subscription) ?? []} /></td></tr>`)}
        </tbody>
      </table>
      <${Unread} names=${flow.unread} />
    </section>`;
}
