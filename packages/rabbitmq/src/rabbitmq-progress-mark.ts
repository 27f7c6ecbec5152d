/**
 * RabbitMQ has no stream positions, so a `groupProgress` mark is the time it was taken,
 * `at:<epoch ms>`: the group is settled through it once it has been seen empty after that time.
 */
import { BrokerArgumentError } from '@protean-ts/core';

const MARK = /^at:(\d{1,16})$/;

export function progressMark(epochMs: number): string {
  return `at:${epochMs}`;
}

export function parseProgressMark(brokerName: string, through: string): number {
  const match = MARK.exec(through);
  if (!match)
    throw new BrokerArgumentError(
      brokerName,
      'groupProgress',
      'through',
      `must be a mark this broker's groupProgress returned as head ("at:<epoch ms>"), got "${through}"`,
    );
  return Number(match[1]);
}
