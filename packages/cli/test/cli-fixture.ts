/**
 * Temp projects for CLI e2e tests: a folder outside the monorepo (so no tsconfig.json above it)
 * with "type": "module" and node_modules/@protean-ts/core linked to this checkout's core.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

const PACKAGES = fileURLToPath(new URL('../..', import.meta.url));
const created: string[] = [];
afterAll(() => {
  for (const folder of created) fs.rmSync(folder, { recursive: true, force: true });
});

/** `link`: further workspace packages (folder names under packages/, e.g. 'redis') the project imports. */
export function tempProject(files: Record<string, string> = {}, options: { linkCore?: boolean; link?: string[] } = {}): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'protean-cli-')));
  created.push(root);
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'temp-domain', private: true, type: 'module' }));
  const links = [...(options.linkCore !== false ? ['core'] : []), ...(options.link ?? [])];
  if (links.length) fs.mkdirSync(path.join(root, 'node_modules/@protean-ts'), { recursive: true });
  for (const name of links) fs.symlinkSync(path.join(PACKAGES, name), path.join(root, `node_modules/@protean-ts/${name}`), 'dir');
  for (const [relative, content] of Object.entries(files)) {
    const file = path.join(root, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
  return root;
}

/** A TypeScript domain with one aggregate whose fields only exist if legacy decorators ran. */
export const TS_DOMAIN = `
import { Domain, BaseAggregate, field } from '@protean-ts/core';
export const domain = new Domain('Shop', { root: import.meta.url });

@domain.aggregate()
export class Order extends BaseAggregate {
  @field.string({ required: true }) customer!: string;
  @field.integer() quantity!: number;
}
`;
