/**
 * Cross-key rules of `[outbox.lanes]`: lane names become parts of broker stream names, so each
 * must be a plain lower-case word, `live` is always there (never listed), and none is repeated.
 */
import type { ConfigProblem } from './config-error.js';
import type { DomainConfig } from './config-types.js';
import { describeValue } from './mask-secrets.js';
import { isPlainObject } from './substitute-env.js';

/** The lane every message is in unless told otherwise. */
export const LIVE_LANE = 'live';

/** A lane name: lower-case letters, digits and `_`, starting with a letter (it becomes part of stream names). */
export const LANE_NAME = /^[a-z][a-z0-9_]{0,39}$/;

export function checkLanes(config: DomainConfig, problems: ConfigProblem[]): void {
  const outbox = config.outbox as Partial<DomainConfig['outbox']> | undefined;
  const lanes: unknown = outbox?.lanes;
  if (!isPlainObject(lanes) || !Array.isArray(lanes.names)) return;
  const seen = new Set<string>();
  lanes.names.forEach((name: unknown, i) => {
    const path = `outbox.lanes.names[${i}]`;
    if (typeof name !== 'string') return;
    if (name === LIVE_LANE) {
      problems.push({ path, message: `"${LIVE_LANE}" is always a lane and is not listed; remove it` });
    } else if (!LANE_NAME.test(name)) {
      problems.push({ path, message: `a lane name is a lower-case word (letters, digits, _; at most 40), such as "backfill"; got ${describeValue(name)}` });
    } else if (seen.has(name)) {
      problems.push({ path, message: `lane "${name}" is listed twice; remove one` });
    }
    seen.add(name);
  });
}
