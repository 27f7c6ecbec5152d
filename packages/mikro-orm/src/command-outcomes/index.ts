/** The PostgreSQL command outcomes: the store the provider exposes as `provider.commandOutcomes`, and its table. */
export { PostgresCommandOutcomeStore } from './postgres-command-outcome-store.js';
export { COMMAND_OUTCOMES_TABLE, commandOutcomesDdl } from './command-outcomes-table.js';
