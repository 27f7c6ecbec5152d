/** The broker's state names and the defaults `BaseBroker` fills in for settings and arguments left out. */

/** `connected` means `connect()` succeeded once; whether the broker answers now is `ping()`. */
export type BrokerState = 'disconnected' | 'connected' | 'closed';

export const DEFAULT_DEAD_LETTER_LIST_COUNT = 100;
/** Default `claim_idle_ms`: a minute without an ack means the consumer is presumed dead. */
export const DEFAULT_CLAIM_IDLE_MS = 60_000;
/** Default `minIdleMs` of `reclaimFromDeadConsumers`: a consumer that read within a second is not robbed. */
export const DEFAULT_DEAD_CONSUMER_MIN_IDLE_MS = 1_000;
