/** The `lane` option of a registered event or command (its default priority lane); undefined without one. */
import type { ElementRecord } from './element-record.js';

export function laneOptionOf(record: ElementRecord | undefined): string | undefined {
  return record && (record.kind === 'event' || record.kind === 'command') ? record.options.lane : undefined;
}
