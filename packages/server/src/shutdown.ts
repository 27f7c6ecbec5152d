/**
 * Turns SIGINT/SIGTERM into one graceful shutdown with a bounded grace time: the first signal
 * runs `shutdown`, a watchdog forces exit when it overruns, and a second signal exits at once.
 */
import type { Logger } from '@protean-ts/core';

export type ShutdownSignal = 'SIGINT' | 'SIGTERM';

export interface ShutdownOptions {
  /** Stops the work in flight; resolves to the process exit code. */
  shutdown: (reason: string) => Promise<number>;
  /** After this long the watchdog exits with `timeoutExitCode`. */
  graceMs: number;
  logger: Logger;
  /** Signals to listen to. Workers under a supervisor drop SIGINT: the supervisor forwards SIGTERM. */
  signals?: readonly ShutdownSignal[];
  timeoutExitCode?: number;
  /** Injected by tests; `process.exit` otherwise. */
  exit?: (code: number) => void;
}

export interface ShutdownHandle {
  /** Starts the same graceful shutdown as a signal would (test mode finishing, the supervisor leaving). */
  trigger(reason: string): Promise<void>;
  /** Removes the signal listeners. */
  dispose(): void;
}

/** Installs the signal listeners; the returned handle also lets code start the same shutdown. */
export function installShutdown(options: ShutdownOptions): ShutdownHandle {
  const signals = options.signals ?? ['SIGINT', 'SIGTERM'];
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const timeoutExitCode = options.timeoutExitCode ?? 1;
  let running: Promise<void> | null = null;

  const trigger = (reason: string): Promise<void> => {
    if (running) return running;
    options.logger.info('shutting down', { reason, graceMs: options.graceMs });
    // The watchdog is not unref'd on purpose: a shutdown stuck on an open socket must still end.
    const watchdog = setTimeout(() => {
      options.logger.error('shutdown did not finish within the grace period; exiting', {
        graceMs: options.graceMs,
        exitCode: timeoutExitCode,
      });
      exit(timeoutExitCode);
    }, options.graceMs);
    running = options
      .shutdown(reason)
      .catch((err: unknown) => {
        options.logger.error('shutdown failed', { error: err instanceof Error ? err.message : String(err) });
        return 1;
      })
      .then((code) => {
        clearTimeout(watchdog);
        exit(code);
      });
    return running;
  };

  const onSignal = (signal: ShutdownSignal) => {
    if (running) {
      options.logger.error('second signal during shutdown; exiting now', { signal });
      exit(130);
      return;
    }
    void trigger(signal);
  };
  const listeners = signals.map((signal) => {
    const listener = () => onSignal(signal);
    process.on(signal, listener);
    return [signal, listener] as const;
  });

  return {
    trigger,
    dispose() {
      for (const [signal, listener] of listeners) process.off(signal, listener);
    },
  };
}
