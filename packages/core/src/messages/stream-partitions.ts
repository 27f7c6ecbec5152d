/**
 * How a stream is split into partitions (`outbox.partitions`): a message goes to the partition
 * its partition key hashes to, and partition 0 is the stream itself, so a domain with one
 * partition publishes exactly as before, and a producer outside the outbox that writes to the
 * stream's own name lands in partition 0. Partition p > 0 of `shop::order` is `shop::order#p`.
 */

/** The separator between a stream's name and its partition number. */
export const PARTITION_SEPARATOR = '#';

/** FNV-1a (32 bit) of the key's UTF-16 code units, modulo `count`: stable across processes and versions. */
export function partitionOf(key: string, count: number): number {
  if (count <= 1) return 0;
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i += 1) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % count;
}

/** The broker stream that holds partition `partition` of `stream`. */
export function partitionStream(stream: string, partition: number): string {
  return partition === 0 ? stream : `${stream}${PARTITION_SEPARATOR}${partition}`;
}

/** Every partition's stream of `stream`, partition 0 (the stream itself) first. */
export function partitionStreams(stream: string, count: number): string[] {
  const streams: string[] = [];
  for (let p = 0; p < Math.max(1, count); p += 1) streams.push(partitionStream(stream, p));
  return streams;
}
