/**
 * The files the observatory's page is made of: its own (observatory-ui/ in the installed
 * package) and the ESM builds of Preact, its hooks and htm from the installed dependencies,
 * served as they are; an import map in index.html names them, so nothing is built at run time.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const UI_FOLDER = fileURLToPath(new URL('../../observatory-ui/', import.meta.url));

const VENDOR: Record<string, string> = {
  '/vendor/preact.mjs': 'preact',
  '/vendor/preact-hooks.mjs': 'preact/hooks',
  '/vendor/htm.mjs': 'htm',
};

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

export interface StaticFile {
  body: Buffer;
  type: string;
}

/** The file for a request path, or null when there is none (never a file outside the UI folder). */
export async function staticFile(urlPath: string): Promise<StaticFile | null> {
  const vendor = VENDOR[urlPath];
  if (vendor) return { body: await readFile(fileURLToPath(import.meta.resolve(vendor))), type: TYPES['.mjs']! };
  const relative = urlPath === '/' ? 'index.html' : urlPath.replace(/^\/ui\//, '');
  if (relative === urlPath) return null;
  const file = path.resolve(UI_FOLDER, relative);
  if (!file.startsWith(UI_FOLDER)) return null;
  const type = TYPES[path.extname(file)];
  if (!type) return null;
  try {
    return { body: await readFile(file), type };
  } catch {
    return null;
  }
}
