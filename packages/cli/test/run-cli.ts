/** The CLI's own tests use the same spawn helper other packages import from `@protean-ts/cli/testing`. */
export { runCli, startCli, CLI_BIN, CLI_DEV_BIN, type RunCliOptions, type CliResult } from '../src/testing/run-cli.js';
