/** The names processors log and report under, one per database × target broker. */
export function outboxProcessorName(database: string, broker: string, external: boolean): string {
  return `outbox-processor-${database}-to-${broker}${external ? '-external' : ''}`;
}
