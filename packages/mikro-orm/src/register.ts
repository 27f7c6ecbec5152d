/** Registers `provider = "postgresql"` with core's adapter registry when this package is imported. */
import { registerDatabaseProvider } from '@protean-ts/core';
import { PostgresProvider } from './postgres-provider.js';
import { POSTGRES_DATABASE_SETTINGS } from './postgres-settings.js';

registerDatabaseProvider('postgresql', (name, settings) => new PostgresProvider(name, settings), { settings: POSTGRES_DATABASE_SETTINGS });
