/**
 * The files docs/getting-started.md asks the reader to write: every fenced code block whose
 * first line is a comment naming a file (`// src/domain.ts`, `# domain.toml`). A file shown
 * twice is the same file at a later step.
 */
import fs from 'node:fs';

export interface GuideFile {
  path: string;
  content: string;
}

const FENCE = /^```[a-z]*\n([\s\S]*?)^```$/gm;
const NAMED = /^(?:\/\/|#) ([\w./-]+\.\w+)\n/;

export function guideFiles(markdownFile: string): GuideFile[] {
  const markdown = fs.readFileSync(markdownFile, 'utf8');
  const files: GuideFile[] = [];
  for (const [, body] of markdown.matchAll(FENCE)) {
    const named = NAMED.exec(body!);
    if (named) files.push({ path: named[1]!, content: body! });
  }
  return files;
}

/** Each file as the guide shows it first (`'first'`) or last (`'last'`). */
export function filesAt(files: readonly GuideFile[], step: 'first' | 'last'): Map<string, string> {
  const chosen = new Map<string, string>();
  for (const file of files) if (step === 'last' || !chosen.has(file.path)) chosen.set(file.path, file.content);
  return chosen;
}
