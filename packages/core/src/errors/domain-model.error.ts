/**
 * Thrown by `domain.checkModel()` (and so by `domain.init()`) when the registered model is
 * inconsistent. It carries every problem found, one line each, so one run shows them all.
 */
export class DomainModelError extends Error {
  constructor(
    readonly domainName: string,
    readonly problems: readonly string[],
  ) {
    super(`Domain "${domainName}" has ${problems.length} model problem${problems.length === 1 ? '' : 's'}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'DomainModelError';
  }
}
