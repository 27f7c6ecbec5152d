/** The PostgreSQL inbox: the store the provider exposes as `provider.inbox`, and its tables. */
export { PostgresInboxStore } from './postgres-inbox-store.js';
export { inboxDdl, INBOX_TABLES, INBOX_CHECKPOINTS_TABLE, INBOX_PASSED_TABLE, INBOX_MESSAGES_TABLE } from './inbox-tables.js';
