/** The files a V8 stack trace names, as paths (file:// URLs turned into paths). */
import { fileURLToPath } from 'node:url';

const FRAME = /^\s*at (?:.*? \()?((?:file:\/\/)?\/[^():]+):\d+:\d+\)?$/;

export function stackFiles(stack: string): string[] {
  return stack
    .split('\n')
    .map((line) => FRAME.exec(line)?.[1])
    .filter((file): file is string => file !== undefined)
    .map((file) => (file.startsWith('file://') ? fileURLToPath(file) : file));
}
