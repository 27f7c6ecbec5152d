/** Registers `provider = "postgresql"` with core's adapter registry when this package is imported. */
import { registerDatabaseProvider } from '@protean-ts/core';
import { PostgresProvider } from './postgres-provider.js';

registerDatabaseProvider('postgresql', (name, settings) => new PostgresProvider(name, settings));
