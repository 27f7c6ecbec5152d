/**
 * @protean-ts/mikro-orm: the `postgresql` database provider, built on MikroORM 6. Importing the
 * package registers the provider with core, so `provider = "postgresql"` works in domain.toml.
 */
import './register.js';

export type { SqlExecutor, SqlDatabase, SqlTransaction, SqlResult, ExecuteOptions, NotificationListener } from './sql-executor.js';
export { PostgresProvider } from './postgres-provider.js';
export { PostgresTransaction } from './postgres-transaction.js';
export type { PostgresSavepoint } from './batch/postgres-savepoint.js';
export { sqlTransactionOf, type PostgresUnitTransaction } from './sql-transaction-of.js';
export { readPostgresSettings, type PostgresSettings } from './postgres-settings.js';
export { DatabaseConnectionError } from './database-connection.error.js';
export { PoolExhaustedError } from './connection/pool-exhausted.error.js';
export { PostgresSettingsError } from './postgres-settings.error.js';
export { SchemaUnusableError } from './schema/schema-unusable.error.js';
export { MappingError } from './mapping.error.js';
// The PostgreSQL outbox store and table set-up (owned by the outbox work; see src/outbox/).
export * from './outbox/index.js';
// The inbox table names, for tools that read them directly (the CLI's observatory).
export { INBOX_CHECKPOINTS_TABLE, INBOX_PASSED_TABLE, INBOX_MESSAGES_TABLE } from './inbox/index.js';
// The PostgreSQL event store and its tables (see src/event-store/).
export * from './event-store/index.js';
