import { PermanentError } from './permanent-error.js';

/**
 * A due time (`deliverAt`, `scheduleTimeout({ at })`) that is not a valid Date, or one given where
 * it cannot apply. Permanent: a handler that makes this mistake makes it on every retry.
 */
export class InvalidDueTimeError extends PermanentError {}
