/** @protean-ts/mikro-orm: the `postgresql` database provider, built on MikroORM 6. */
export type { SqlExecutor, SqlDatabase, SqlTransaction, SqlResult, NotificationListener } from './sql-executor.js';
