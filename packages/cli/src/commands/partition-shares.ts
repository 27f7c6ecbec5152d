/**
 * What the supervisor says at start about key affinity: each partition is read by one worker, so
 * fewer partitions than workers leaves some workers relaying the outbox only, and a count that
 * does not divide evenly gives some workers one more partition (more of the keys) than others.
 */
export interface PartitionShareNote {
  level: 'info' | 'warn';
  msg: string;
  fields: Record<string, unknown>;
}

/** Null without partitions (`outbox.partitions = 1`). */
export function partitionShares(workers: number, partitions: number): PartitionShareNote | null {
  if (partitions <= 1) return null;
  const fields = { workers, partitions, perWorker: `${Math.floor(partitions / workers)}-${Math.ceil(partitions / workers)}` };
  if (partitions < workers) {
    return {
      level: 'warn',
      msg: 'fewer stream partitions than workers: the workers without one only relay the outbox and stand by',
      fields: { ...fields, hint: 'set outbox.partitions to the number of workers or a multiple of it' },
    };
  }
  if (partitions % workers !== 0)
    return { level: 'info', msg: 'stream partitions do not divide evenly among the workers: some handle more keys than others', fields };
  return { level: 'info', msg: 'stream partitions per worker', fields: { ...fields, perWorker: String(partitions / workers) } };
}
