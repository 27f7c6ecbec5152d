/**
 * Used by bin/protean-ts-dev.js before any of the CLI's own TypeScript is loaded: from the raw
 * command line, find the domain module (if any) and write the tsconfig tsx must be registered
 * with, so the CLI's sources and the user's domain share one tsx registration and one module graph.
 */
import { locateDomainModule } from '../locate-domain.js';
import { writeRuntimeTsconfig } from './register-typescript.js';

/** The value of a global `--name value` / `--name=value` option, before any `--`. */
export function optionFromArgv(args: readonly string[], name: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') break;
    if (arg === `--${name}`) return args[i + 1];
    if (arg.startsWith(`--${name}=`)) return arg.slice(name.length + 3);
  }
  return undefined;
}

export function runtimeTsconfigForArgv(args: readonly string[], cwd: string, env: Record<string, string | undefined>): string {
  let domainFile: string | null = null;
  try {
    domainFile = locateDomainModule({ domain: optionFromArgv(args, 'domain'), config: optionFromArgv(args, 'config'), cwd, env })?.file ?? null;
  } catch {
    // A broken domain.toml is reported properly by the command itself; here it only means
    // we cannot pick the domain's tsconfig, so the fallback is used.
  }
  return writeRuntimeTsconfig(domainFile);
}
