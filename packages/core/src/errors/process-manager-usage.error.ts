import { PermanentError } from './permanent-error.js';

/**
 * A process manager used the wrong way at run time: `send`/`scheduleTimeout` outside a handler,
 * a timeout event its subscriptions would never deliver back, an event without its correlation
 * value. Permanent: the same message meets the same mistake on every retry, so it is
 * dead-lettered at once.
 */
export class ProcessManagerUsageError extends PermanentError {}
