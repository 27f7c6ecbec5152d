// The observatory's page: a tab per view, chosen by the URL's hash (#map, #flow, …), and one
// server-sent-event stream whose snapshots (outbox, subscriptions, flow) every view reads live.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { html } from './lib.js';
import { MapView } from './views/map.js';
import { CatalogView } from './views/catalog.js';
import { FlowView } from './views/flow.js';
import { OutboxView } from './views/outbox.js';
import { SubscriptionsView } from './views/subscriptions.js';
import { JourneyView } from './views/journey.js';

const VIEWS = [
  { id: 'map', title: 'Domain map', component: MapView },
  { id: 'messages', title: 'Messages', component: CatalogView },
  { id: 'flow', title: 'Message flow', component: FlowView },
  { id: 'outbox', title: 'Outbox', component: OutboxView },
  { id: 'subscriptions', title: 'Subscriptions', component: SubscriptionsView },
  { id: 'journey', title: 'Journey', component: JourneyView },
];

function currentRoute() {
  const [id, query = ''] = location.hash.replace(/^#/, '').split('?');
  return { id: VIEWS.some((v) => v.id === id) ? id : 'map', params: new URLSearchParams(query) };
}

function useLiveSnapshot() {
  const [state, setState] = useState({ snapshot: null, connected: false, failure: null });
  useEffect(() => {
    const source = new EventSource('/events');
    source.addEventListener('open', () => setState((s) => ({ ...s, connected: true })));
    source.addEventListener('error', () => setState((s) => ({ ...s, connected: false })));
    source.addEventListener('snapshot', (event) => setState({ snapshot: JSON.parse(event.data), connected: true, failure: null }));
    source.addEventListener('failure', (event) => setState((s) => ({ ...s, failure: JSON.parse(event.data) })));
    return () => source.close();
  }, []);
  return state;
}

function App() {
  const [route, setRoute] = useState(currentRoute());
  useEffect(() => {
    const onHash = () => setRoute(currentRoute());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  const live = useLiveSnapshot();
  const view = VIEWS.find((v) => v.id === route.id);
  const View = view.component;
  return html`
    <header>
      <h1>protean-ts observatory</h1>
      <nav>${VIEWS.map((v) => html`<a href=${`#${v.id}`} class=${v.id === route.id ? 'active' : ''} data-view=${v.id}>${v.title}</a>`)}</nav>
      <span class=${`live ${live.connected ? 'on' : 'off'}`} data-testid="live">
        ${live.connected ? `live · ${live.snapshot ? new Date(live.snapshot.at).toLocaleTimeString([], { hour12: false }) : 'waiting'}` : 'reconnecting…'}
      </span>
    </header>
    ${live.failure && html`<p class="error" data-testid="failure">Could not read the domain's state at ${live.failure.at}: ${live.failure.message}</p>`}
    <main data-testid=${`view-${view.id}`}>
      <${View} snapshot=${live.snapshot} params=${route.params} />
    </main>`;
}

const root = document.getElementById('app');
// The loading line is static HTML, not Preact's: clear it so render starts from an empty root.
root.replaceChildren();
render(html`<${App} />`, root);
