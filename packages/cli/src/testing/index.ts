/** Helpers for tests that run the real `protean-ts` command (`@protean-ts/cli/testing`). */
export { runCli, startCli, CLI_BIN, CLI_DEV_BIN, type RunCliOptions, type CliResult } from './run-cli.js';
