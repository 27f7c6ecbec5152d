// Shared by every view: htm bound to Preact, JSON requests to the observatory's API, formatting.
import { h } from 'preact';
import htm from 'htm';

export const html = htm.bind(h);

export async function getJson(path) {
  const response = await fetch(path);
  const body = await response.json();
  if (!response.ok) throw new Error(body.error ?? `${response.status} ${response.statusText}`);
  return body;
}

export async function postJson(path, payload) {
  const response = await fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(payload) });
  const body = await response.json();
  if (!response.ok) throw new Error(body.error ?? `${response.status} ${response.statusText}`);
  return body;
}

/** `2h 5m`, `3m 12s`, `840 ms`, as `protean-ts outbox status` prints ages. */
export function formatAge(ms) {
  if (ms === null || ms === undefined) return 'none';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = Math.floor(ms / 1000);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return `${h}h ${m}m`;
  if (m > 0) return `${m}m ${s}s`;
  return `${s}s`;
}

export function formatTime(iso) {
  if (!iso) return '—';
  const date = new Date(iso);
  return `${date.toLocaleTimeString([], { hour12: false })}.${String(date.getMilliseconds()).padStart(3, '0')}`;
}

export function formatRate(perSecond) {
  if (perSecond === null || perSecond === undefined) return '…';
  return perSecond >= 10 ? perSecond.toFixed(0) : perSecond.toFixed(1);
}

export function Unread({ names }) {
  if (!names || names.length === 0) return null;
  return html`<p class="note">Not read this time: ${names.join('; ')}.</p>`;
}
