/** The embedded `memory` database provider; importing this module registers it. */
import { MEMORY_DATABASE_SETTINGS } from '../../config/known-providers.js';
import { registerDatabaseProvider } from '../registry.js';
import { MemoryProvider } from './memory-provider.js';

registerDatabaseProvider('memory', (name, settings) => new MemoryProvider(name, settings), { settings: MEMORY_DATABASE_SETTINGS });

export { MemoryProvider } from './memory-provider.js';
export { MemoryOutboxStore } from './memory-outbox-store.js';
export { MemoryInboxStore } from './memory-inbox-store.js';
export { MemoryCommandOutcomeStore } from './memory-command-outcome-store.js';
export { MemoryEventStore } from './memory-event-store.js';
export { MemoryTransaction } from './memory-transaction.js';
