/** Temp folders holding domain.toml files, one per test, removed after the file's tests. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

const created: string[] = [];
afterAll(() => {
  for (const folder of created) fs.rmSync(folder, { recursive: true, force: true });
});

/** A fresh temp folder with the given files (relative path → content). */
export function tempProject(files: Record<string, string> = {}): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'protean-config-')));
  created.push(root);
  for (const [relative, content] of Object.entries(files)) {
    const file = path.join(root, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
  return root;
}

/** A project whose only file is domain.toml with `toml`; returns the file's path. */
export function tomlFile(toml: string): string {
  return path.join(tempProject({ 'domain.toml': toml }), 'domain.toml');
}
