/**
 * A process manager used the wrong way at run time: `send`/`scheduleTimeout` outside a handler,
 * a timeout event its subscriptions would never deliver back, an event without its correlation value.
 */
export class ProcessManagerUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProcessManagerUsageError';
  }
}
