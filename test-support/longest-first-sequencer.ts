/**
 * The order test files start in. Vitest's default runs the projects one after another, each file
 * in an order it only knows after a run on this machine; on a fresh clone the suite then ended
 * with the shop's 90-second e2e file running alone while two workers sat idle. Here:
 *
 * 1. heavy files (an expected 5 s or more) first, longest first, whatever their project, so the
 *    run does not end on one of them;
 * 2. then the light files grouped by project, so a worker that has imported a project's modules
 *    takes that project's next file and keeps them (the projects run with `isolate: false`).
 *
 * A file's expected duration is this machine's last measured one (Vitest's results cache), else
 * the one recorded in file-durations.json from a fresh-clone run, else a guess from its suffix.
 * A wrong guess only costs balance, never a result.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const REPOSITORY = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const RECORDED_SECONDS = JSON.parse(fs.readFileSync(path.join(REPOSITORY, 'test-support/file-durations.json'), 'utf8')) as Record<string, number>;
const HEAVY_SECONDS = 5;

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const expected = new Map(files.map((file) => [file, this.expectedSeconds(file)]));
    const longestFirst = (a: TestSpecification, b: TestSpecification) => expected.get(b)! - expected.get(a)!;
    const heavy = files.filter((file) => expected.get(file)! >= HEAVY_SECONDS).sort(longestFirst);
    const light = files.filter((file) => expected.get(file)! < HEAVY_SECONDS);
    const byProject = new Map<string, TestSpecification[]>();
    for (const file of light) byProject.set(file.project.name, [...(byProject.get(file.project.name) ?? []), file]);
    const projectSeconds = (group: TestSpecification[]) => group.reduce((sum, file) => sum + expected.get(file)!, 0);
    const groups = [...byProject.values()].sort((a, b) => projectSeconds(b) - projectSeconds(a));
    return [...heavy, ...groups.flatMap((group) => group.sort(longestFirst))];
  }

  private expectedSeconds(file: TestSpecification): number {
    const relative = path.relative(REPOSITORY, file.moduleId);
    const measured = this.ctx.cache.getFileTestResults(`${file.project.name}:${path.relative(this.ctx.config.root, file.moduleId)}`);
    if (measured && !measured.failed) return measured.duration / 1000;
    return RECORDED_SECONDS[relative] ?? guessFromSuffix(relative);
  }
}

function guessFromSuffix(file: string): number {
  if (file.includes('.e2e.')) return 10;
  if (file.includes('.int.')) return 2;
  return 0.5;
}
