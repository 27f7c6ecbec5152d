/** The PostgreSQL event store: the store the provider exposes as `provider.eventStore`, and its tables. */
export { PostgresEventStore } from './postgres-event-store.js';
export { eventStoreDdl, eventStoreTableNames, EVENT_STORE_TABLES, EVENTS_TABLE, EVENT_STREAMS_TABLE, SNAPSHOTS_TABLE } from './event-store-tables.js';
export { PostgresEventStoreSubscriptions } from './postgres-event-store-subscriptions.js';
export { SUBSCRIPTIONS_TABLE, DEAD_LETTERS_TABLE } from './subscription-tables.js';
