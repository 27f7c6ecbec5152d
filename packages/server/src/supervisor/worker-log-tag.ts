/**
 * Puts `workerId` on every log record of a worker process, including records of loggers the
 * server does not create (the domain's, the adapters'), so interleaved worker output stays
 * attributable.
 */
import { configureLogging, formatRecord } from '@protean-ts/core';

export function tagLogsWithWorker(workerId: number): void {
  const current = configureLogging({});
  configureLogging({
    sink: (_line, record) => {
      const tagged = { ...record, workerId };
      current.sink(formatRecord(tagged, current.format), tagged);
    },
  });
}
