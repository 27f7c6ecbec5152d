/**
 * The PostgreSQL outbox: the store the provider exposes as `provider.outbox`, and the table
 * set-up it runs from `setupSchema` (outbox on) and `setupOutbox`.
 */
export { PostgresOutboxStore } from './postgres-outbox-store.js';
export { setupOutboxTable } from './setup-outbox-table.js';
export { outboxDdl } from './outbox-ddl.sql.js';
export { OUTBOX_TABLE, OUTBOX_POSITIONS_TABLE, OUTBOX_CHANNEL } from './outbox-table.js';
export { InvalidOutboxIdError } from './invalid-outbox-id.error.js';
export { InvalidOutboxRequestError } from './invalid-outbox-request.error.js';
