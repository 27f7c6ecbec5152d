/** The CLI's version, read from its package.json (one folder above both src/ and dist/). */
import fs from 'node:fs';

export function cliVersion(): string {
  const manifest = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
  return manifest.version ?? '0.0.0';
}
