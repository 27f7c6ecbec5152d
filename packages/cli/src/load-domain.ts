/**
 * Imports the module a domain lives in and finds its `Domain` instance: the named export
 * `domain`, else the default export, else the only exported Domain. Every failure (missing
 * file, compile error, no Domain) is a CliError naming the file and how to fix it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Domain, getLogger } from '@protean-ts/core';
import { CliError } from './errors.js';
import type { DomainLocation } from './locate-domain.js';
import { baseTsconfigFor, ensureTypeScript, isTypeScriptFile } from './typescript/register-typescript.js';

const LOADABLE_EXTENSIONS = ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'];
const log = getLogger('cli.load-domain');

export class DomainLoadError extends CliError {
  constructor(
    readonly file: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, 1, options);
    this.name = 'DomainLoadError';
  }
}

export async function loadDomain(location: DomainLocation): Promise<Domain> {
  const { file } = location;
  const from = location.source === '--domain' ? 'given with --domain' : `named by \`module\` in ${location.configFile}`;
  if (!fs.existsSync(file) || !fs.statSync(file).isFile()) {
    throw new DomainLoadError(file, `domain module ${file} (${from}) does not exist`);
  }
  if (!LOADABLE_EXTENSIONS.includes(path.extname(file))) {
    throw new DomainLoadError(file, `domain module ${file} must be a .ts or .js file (got "${path.extname(file) || 'no extension'}")`);
  }
  if (isTypeScriptFile(file)) {
    const tsconfig = await ensureTypeScript(file);
    log.debug('tsx registered for the TypeScript domain', { file, tsconfig, extends: baseTsconfigFor(file) });
  }
  const started = performance.now();
  const exports = await importModule(file);
  const domain = pickDomain(file, exports);
  log.debug('domain module loaded', { file, domain: domain.name, ms: Math.round(performance.now() - started) });
  return domain;
}

async function importModule(file: string): Promise<Record<string, unknown>> {
  try {
    return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    throw new DomainLoadError(file, describeImportFailure(file, error), { cause: error });
  }
}

function describeImportFailure(file: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: string } | null)?.code;
  if (/Transform failed|ERROR:/.test(message) || error instanceof SyntaxError) {
    return `domain module ${file} failed to compile: ${message.trim().split('\n').slice(0, 6).join('\n    ')}`;
  }
  if (code === 'ERR_REQUIRE_ESM' || /require\(\) of ES Module/.test(message)) {
    return `domain module ${file} was loaded as CommonJS but imports ES modules; add "type": "module" to its package.json or rename it to .mts`;
  }
  const name = error instanceof Error && error.name !== 'Error' ? `${error.name}: ` : '';
  return `domain module ${file} failed to load: ${name}${message}`;
}

function pickDomain(file: string, exports: Record<string, unknown>): Domain {
  if (exports.domain instanceof Domain) return exports.domain;
  if (exports.default instanceof Domain) return exports.default;
  const found = Object.entries(exports).filter(([, value]) => value instanceof Domain);
  if (found.length === 1) return found[0]![1] as Domain;
  if (found.length > 1) {
    const names = found.map(([name]) => name).join(', ');
    throw new DomainLoadError(file, `domain module ${file} exports several Domain instances (${names}); export the one to run as \`domain\``);
  }
  const foreign = Object.entries(exports).find(([, value]) => looksLikeForeignDomain(value));
  if (foreign) {
    throw new DomainLoadError(
      file,
      `domain module ${file} exports \`${foreign[0]}\`, a Domain from a different copy of @protean-ts/core; ` +
        'make sure the project and protean-ts resolve the same @protean-ts/core (npm ls @protean-ts/core)',
    );
  }
  const names = Object.keys(exports);
  throw new DomainLoadError(
    file,
    `domain module ${file} exports no Domain instance (exports: ${names.length ? names.join(', ') : 'nothing'}); ` +
      "add `export const domain = new Domain('MyApp', { root: import.meta.url })`",
  );
}

function looksLikeForeignDomain(value: unknown): boolean {
  for (let proto = value === null || typeof value !== 'object' ? null : Object.getPrototypeOf(value); proto; proto = Object.getPrototypeOf(proto)) {
    if ((proto as { constructor?: { name?: string } }).constructor?.name === 'Domain') return true;
  }
  return false;
}
