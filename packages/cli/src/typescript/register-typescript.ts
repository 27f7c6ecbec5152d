/**
 * Lets the CLI import a TypeScript domain with no build step. tsx compiles it, but tsx applies
 * a tsconfig only to files its `include` matches and otherwise silently uses TC39 decorators,
 * and `tsImport` loads every dependency again under a namespace (a second @protean-ts/core,
 * whose registries the CLI never sees). So we register tsx once, globally, with a generated
 * tsconfig that extends the user's (or our fallback), forces the decorator settings the
 * framework needs, and includes every file.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fallbackTsconfig, findNearestTsconfig } from './find-tsconfig.js';

const REGISTERED = Symbol.for('protean-ts.cli.typescript-registered');
type Registry = { [REGISTERED]?: string };

/**
 * Options the framework's decorators rely on, whatever the user's tsconfig says. Not
 * `emitDecoratorMetadata`: fields declare their kind, and emitting `design:type` breaks forward
 * field references (`address?: Address` with Address declared later).
 */
export const REQUIRED_COMPILER_OPTIONS = {
  experimentalDecorators: true,
  useDefineForClassFields: false,
} as const;

export const TYPESCRIPT_EXTENSIONS = ['.ts', '.mts', '.cts'] as const;

export function isTypeScriptFile(file: string): boolean {
  return (TYPESCRIPT_EXTENSIONS as readonly string[]).includes(path.extname(file));
}

/** The tsconfig a domain module's own settings come from: its nearest one, else the CLI's fallback. */
export function baseTsconfigFor(domainFile: string | null): string {
  return (domainFile && findNearestTsconfig(domainFile)) || fallbackTsconfig();
}

/** Writes (once per content) the tsconfig tsx is registered with, and returns its path. */
export function writeRuntimeTsconfig(domainFile: string | null): string {
  const base = baseTsconfigFor(domainFile);
  const root = path.parse(domainFile ? path.resolve(domainFile) : process.cwd()).root;
  const content = JSON.stringify({ extends: base, compilerOptions: REQUIRED_COMPILER_OPTIONS, include: [`${root}**/*`], exclude: [] }, null, 2);
  const folder = path.join(os.tmpdir(), 'protean-ts');
  fs.mkdirSync(folder, { recursive: true });
  const hash = crypto.createHash('sha256').update(content).digest('hex').slice(0, 16);
  const file = path.join(folder, `tsconfig.${hash}.json`);
  if (!fs.existsSync(file)) {
    // Content-addressed and renamed into place, so concurrent CLI processes never see half a file.
    const temporary = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, content);
    fs.renameSync(temporary, file);
  }
  return file;
}

/** The tsconfig tsx was registered with in this process, or null. */
export function registeredTsconfig(): string | null {
  return (globalThis as Registry)[REGISTERED] ?? null;
}

/** Registers tsx for the whole process (once); later calls are no-ops. */
export async function ensureTypeScript(domainFile: string | null): Promise<string> {
  const already = registeredTsconfig();
  if (already) return already;
  const tsconfig = writeRuntimeTsconfig(domainFile);
  const { register } = await import('tsx/esm/api');
  register({ tsconfig });
  (globalThis as Registry)[REGISTERED] = tsconfig;
  return tsconfig;
}

/** For the dev runner, which registers tsx itself before any TypeScript of the CLI loads. */
export function markTypeScriptRegistered(tsconfig: string): void {
  (globalThis as Registry)[REGISTERED] = tsconfig;
}
