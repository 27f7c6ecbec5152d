// A message's journey: every outbox row of one correlation id, in the order written, with
// each subscription that handles it and what its inbox says (handled, passed, dead-lettered).
import { useEffect, useState } from 'preact/hooks';
import { formatTime, getJson, html, Unread } from '../lib.js';

export function JourneyView({ params }) {
  const initial = params.get('correlation') ?? '';
  const [input, setInput] = useState(initial);
  const [state, setState] = useState({ loading: false, data: null, error: null });
  const load = (correlation) => {
    if (!correlation) return;
    setState({ loading: true, data: null, error: null });
    getJson(`/api/journey?correlation=${encodeURIComponent(correlation)}`).then(
      (data) => setState({ loading: false, data, error: null }),
      (error) => setState({ loading: false, data: null, error: error.message }),
    );
  };
  useEffect(() => {
    setInput(initial);
    load(initial);
  }, [initial]);
  const submit = (event) => {
    event.preventDefault();
    location.hash = `journey?correlation=${encodeURIComponent(input.trim())}`;
  };
  const { data } = state;
  const start = data?.steps[0] ? Date.parse(data.steps[0].createdAt) : 0;
  const offset = (iso) => (iso ? `+${Date.parse(iso) - start} ms` : '');
  return html`
    <section>
      <h2>A message's journey</h2>
      <form onSubmit=${submit}>
        <input name="correlation" placeholder="correlation id" value=${input} onInput=${(e) => setInput(e.target.value)} size="48" />
        <button type="submit">Follow</button>
      </form>
      ${state.loading && html`<p class="loading">Following…</p>`}
      ${state.error && html`<p class="error">${state.error}</p>`}
      ${data && data.steps.length === 0 && html`<p class="note" data-testid="journey-empty">No outbox row carries correlation id ${data.correlationId} (published rows are removed after the outbox retention).</p>`}
      ${
        data &&
        data.steps.length > 0 &&
        html`
        <ol class="journey" data-testid="journey">
          ${data.steps.map(
            (step) => html`
            <li data-message=${step.messageId}>
              <div class="step">
                <strong>${step.messageType}</strong> <span class="note">${step.stream} · ${step.partitionKey} #${step.sequence} · outbox ${step.status}</span>
                <div class="times">written ${formatTime(step.createdAt)} ${offset(step.createdAt)} · published ${formatTime(step.publishedAt)} ${offset(step.publishedAt)}</div>
                ${step.lastError && html`<div class="error-text">${step.lastError}</div>`}
              </div>
              <ul class="handlings">
                ${step.handlings.length === 0 && html`<li class="note">no subscription handles this type</li>`}
                ${step.handlings.map(
                  (hd) => html`
                  <li class=${`handling ${hd.state}`} data-subscription=${hd.subscription}>
                    <span class="state">${hd.state}</span> ${hd.subscription} <span class="note">(${hd.role})</span>
                    ${hd.at && html` <span class="times">${hd.exact ? '' : 'by '}${formatTime(hd.at)} ${offset(hd.at)}</span>`}
                    ${hd.detail && html` <span class="note">${hd.detail}</span>`}
                  </li>`,
                )}
              </ul>
            </li>`,
          )}
        </ol>`
      }
      ${data && html`<${Unread} names=${data.unread} />`}
    </section>`;
}
