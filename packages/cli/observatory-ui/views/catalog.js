// The message catalog beside the domain map: each event and command with its fields, version,
// stream, published or internal, and what consumes it (the same data as `protean-ts catalog`).
import { useEffect, useState } from 'preact/hooks';
import { getJson, html } from '../lib.js';

function typeOf(f) {
  if (f.kind === 'list') return `list of ${f.of === 'valueObject' ? f.target : f.of}`;
  if (f.kind === 'hasMany') return `list of ${f.target}`;
  return f.target ? `${f.kind} ${f.target}` : f.kind;
}

function limitsOf(f) {
  const parts = [f.required ? 'required' : 'optional'];
  if (f.minLength !== undefined) parts.push(`min length ${f.minLength}`);
  if (f.maxLength !== undefined) parts.push(`max length ${f.maxLength}`);
  if (f.min !== undefined) parts.push(`min ${f.min}`);
  if (f.max !== undefined) parts.push(`max ${f.max}`);
  if (f.choices) parts.push(`one of ${f.choices.join(', ')}`);
  if (f.values) parts.push(`one of ${f.values.join(', ')}`);
  return parts.join(', ');
}

function fieldRows(fields, prefix = '') {
  return fields.flatMap((f) => [
    html`<tr><td><code>${prefix}${f.name}</code></td><td>${typeOf(f)}</td><td>${limitsOf(f)}</td></tr>`,
    ...(f.kind === 'reference' ? [] : fieldRows(f.fields ?? [], `${prefix}${f.name}${f.kind === 'list' || f.kind === 'hasMany' ? '[]' : ''}.`)),
  ]);
}

function Entry({ entry }) {
  return html`
    <div class="card" data-message=${entry.type}>
      <h3>${entry.name} <span class="count">v${entry.version}</span> ${entry.published ? html`<span class="badge" data-testid="published">published</span>` : ''}</h3>
      <p class="note">${entry.type} · ${entry.aggregate ?? 'no aggregate'} · stream ${entry.streamCategory ?? '—'}</p>
      <table><tbody>${fieldRows(entry.fields)}</tbody></table>
      <p class="note">Consumed by: ${entry.consumers.length ? entry.consumers.map((c) => `${c.name} (${c.kind}${c.projection ? ` → ${c.projection}` : ''}${c.cloudEventTypes ? `, CloudEvents ${c.cloudEventTypes.join(', ')}` : ''})`).join(', ') : 'nothing in this domain'}</p>
    </div>`;
}

export function CatalogView() {
  const [catalog, setCatalog] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => void getJson('/api/catalog').then(setCatalog, (e) => setError(e.message)), []);
  if (error) return html`<p class="error">${error}</p>`;
  if (!catalog) return html`<p class="loading">Loading the messages…</p>`;
  return html`
    <section data-testid="catalog-events">
      <h2>Events <span class="count">${catalog.events.length}</span></h2>
      <div class="catalog">${catalog.events.map((entry) => html`<${Entry} entry=${entry} />`)}</div>
    </section>
    <section data-testid="catalog-commands">
      <h2>Commands <span class="count">${catalog.commands.length}</span></h2>
      <div class="catalog">${catalog.commands.map((entry) => html`<${Entry} entry=${entry} />`)}</div>
    </section>`;
}
