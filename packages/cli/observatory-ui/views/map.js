// The domain's map: its elements by kind, and which subscription listens to which stream.
import { useEffect, useState } from 'preact/hooks';
import { getJson, html } from '../lib.js';

const KIND_TITLES = {
  aggregate: 'Aggregates',
  entity: 'Entities',
  valueObject: 'Value objects',
  event: 'Events',
  command: 'Commands',
  query: 'Queries',
  commandHandler: 'Command handlers',
  eventHandler: 'Event handlers',
  queryHandler: 'Query handlers',
  applicationService: 'Application services',
  domainService: 'Domain services',
  repository: 'Repositories',
  subscriber: 'Subscribers',
  processManager: 'Process managers',
  projection: 'Projections',
  projector: 'Projectors',
};

export function MapView() {
  const [map, setMap] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => void getJson('/api/map').then(setMap, (e) => setError(e.message)), []);
  if (error) return html`<p class="error">${error}</p>`;
  if (!map) return html`<p class="loading">Loading the domain…</p>`;
  const byStream = new Map();
  for (const s of map.subscriptions) {
    const key = `${s.broker}:${s.stream}${s.source === 'event_store' ? ' (event store)' : ''}`;
    byStream.set(key, [...(byStream.get(key) ?? []), s]);
  }
  return html`
    <section>
      <h2>Domain <span data-testid="domain-name">${map.name}</span></h2>
      <p class="note">${map.module}</p>
      ${map.problems.length > 0 && html`<ul class="error">${map.problems.map((p) => html`<li>${p}</li>`)}</ul>`}
      <div class="kinds">
        ${Object.entries(map.elements).map(
          ([kind, names]) => html`
          <div class="card" data-kind=${kind}>
            <h3>${KIND_TITLES[kind] ?? kind} <span class="count">${names.length}</span></h3>
            <ul>${names.map((n) => html`<li>${n}</li>`)}</ul>
          </div>`,
        )}
      </div>
    </section>
    <section>
      <h2>Who listens to which stream</h2>
      <table data-testid="map-subscriptions">
        <thead><tr><th>Stream</th><th>Subscription</th><th>Kind</th><th>Handles</th></tr></thead>
        <tbody>
          ${[...byStream.entries()].map(([stream, subs]) =>
            subs.map(
              (s, i) => html`
            <tr data-subscription=${s.group}>
              ${i === 0 && html`<td rowspan=${subs.length} class="stream">${stream}</td>`}
              <td>${s.group}</td><td>${s.role}</td><td class="types">${s.handles.join(', ') || '—'}</td>
            </tr>`,
            ),
          )}
        </tbody>
      </table>
      ${
        map.aggregates.length > 0 &&
        html`
        <h2>Aggregates and their tables</h2>
        <table>
          <thead><tr><th>Aggregate</th><th>Database</th><th>Table or streams</th><th>Fields</th></tr></thead>
          <tbody>${map.aggregates.map((a) => html`<tr><td>${a.name}</td><td>${a.provider}</td><td>${a.eventSourced ? html`<em>event-sourced: streams ${a.streamCategory}-&lt;id&gt;</em>` : a.table}</td><td class="types">${a.fields.join(', ')}</td></tr>`)}</tbody>
        </table>`
      }
    </section>`;
}
