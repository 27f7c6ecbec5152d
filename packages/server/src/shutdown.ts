/**
 * Turns SIGINT/SIGTERM into one graceful shutdown with a bounded grace time: the first signal
 * runs `shutdown`, a watchdog forces the process out when it overruns, and a second signal
 * exits at once. `exited` resolves with the exit code when the shutdown finished in time.
 */

/**
 * A repeat of the same signal this soon after the first is one request delivered twice, not an
 * operator insisting: a supervised worker gets SIGTERM from a signal sent to its whole process
 * group (systemd's control-group kill, `kill -TERM -<pgid>`) and again from its supervisor.
 */
export const DUPLICATE_SIGNAL_MS = 1_000;
import type { Logger } from '@protean-ts/core';

export type ShutdownSignal = 'SIGINT' | 'SIGTERM';

export interface ShutdownOptions {
  /** Stops the work in flight; resolves to the process exit code. */
  shutdown: (reason: string) => Promise<number>;
  /** After this long the watchdog calls `forceExit(timeoutExitCode)`. */
  graceMs: number;
  logger: Logger;
  /** Signals to listen to. Workers under a supervisor drop SIGINT: the supervisor forwards SIGTERM. */
  signals?: readonly ShutdownSignal[];
  timeoutExitCode?: number;
  /** Ends the process when the shutdown overran or a second signal came; `process.exit` by default. */
  forceExit?: (code: number) => void;
}

export interface ShutdownHandle {
  /** Starts the same graceful shutdown a signal would (test mode finishing, the supervisor leaving). */
  trigger(reason: string): Promise<number>;
  /** Resolves with the exit code once a shutdown (from a signal or `trigger`) has finished. */
  readonly exited: Promise<number>;
  /** Removes the signal listeners. */
  dispose(): void;
}

export function installShutdown(options: ShutdownOptions): ShutdownHandle {
  const signals = options.signals ?? ['SIGINT', 'SIGTERM'];
  const forceExit = options.forceExit ?? ((code: number) => process.exit(code));
  const timeoutExitCode = options.timeoutExitCode ?? 1;
  let running: Promise<number> | null = null;
  let first: { signal: ShutdownSignal; at: number } | null = null;
  let resolveExited!: (code: number) => void;
  const exited = new Promise<number>((resolve) => (resolveExited = resolve));

  const trigger = (reason: string): Promise<number> => {
    if (running) return running;
    options.logger.info('shutting down', { reason, graceMs: options.graceMs });
    // Not unref'd on purpose: a shutdown stuck on an open socket must still end the process.
    const watchdog = setTimeout(() => {
      options.logger.error('shutdown did not finish within the grace period; exiting', { graceMs: options.graceMs, exitCode: timeoutExitCode });
      forceExit(timeoutExitCode);
    }, options.graceMs);
    running = options
      .shutdown(reason)
      .catch((err: unknown) => {
        options.logger.error('shutdown failed', { error: err });
        return 1;
      })
      .then((code) => {
        clearTimeout(watchdog);
        dispose();
        resolveExited(code);
        return code;
      });
    return running;
  };

  const onSignal = (signal: ShutdownSignal) => {
    if (running && first?.signal === signal && Date.now() - first.at < DUPLICATE_SIGNAL_MS) {
      options.logger.info('same signal again during shutdown; still shutting down gracefully', { signal });
      return;
    }
    if (running) {
      options.logger.error('second signal during shutdown; exiting now', { signal });
      forceExit(130);
      return;
    }
    first = { signal, at: Date.now() };
    void trigger(signal);
  };
  const listeners = signals.map((signal) => {
    const listener = () => onSignal(signal);
    process.on(signal, listener);
    return [signal, listener] as const;
  });
  const dispose = () => {
    for (const [signal, listener] of listeners) process.off(signal, listener);
  };

  return { trigger, exited, dispose };
}
