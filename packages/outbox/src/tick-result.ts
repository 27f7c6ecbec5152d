/** What one claim → publish → record cycle of an `OutboxProcessor` did. */
export interface TickResult {
  claimed: number;
  published: number;
  failed: number;
  abandoned: number;
  released: number;
  lostLocks: number;
  brokerUnavailable: boolean;
  databaseUnavailable: boolean;
}

export const emptyResult = (): TickResult => ({
  claimed: 0,
  published: 0,
  failed: 0,
  abandoned: 0,
  released: 0,
  lostLocks: 0,
  brokerUnavailable: false,
  databaseUnavailable: false,
});
