/** The protean-ts command line, as a library: build or run the program, and the pieces command files share. */
export { main, type MainOptions } from './main.js';
export { buildProgram } from './build-program.js';
export { createCliContext, type CliContext, type CliIO, type GlobalOptions } from './cli-context.js';
export { COMMAND_GROUPS, type CommandGroup } from './commands/index.js';
export { CliError, ExitCode, reportError } from './errors.js';
export { loadDomain, DomainLoadError } from './load-domain.js';
export { locateDomainModule, requireDomainModule, type DomainLocation } from './locate-domain.js';
export { ensureTypeScript } from './typescript/register-typescript.js';
