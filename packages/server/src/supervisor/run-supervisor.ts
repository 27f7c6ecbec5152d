/**
 * The supervisor as a process: starts the Supervisor, turns SIGINT/SIGTERM into stopping every
 * worker (SIGTERM, then SIGKILL after the grace period), and resolves with the exit code when
 * the supervisor is done (stopped, gave up on a crash loop, or every test-mode worker finished).
 */
import { installShutdown } from '../shutdown.js';
import { Supervisor, type SupervisorOptions } from './supervisor.js';

/** The supervisor's own watchdog allows this much beyond the workers' grace period. */
const SUPERVISOR_MARGIN_MS = 5_000;

export async function runSupervisor(options: SupervisorOptions & { forceExit?: (code: number) => void }): Promise<number> {
  const supervisor = new Supervisor(options);
  const shutdown = installShutdown({
    graceMs: options.graceMs + SUPERVISOR_MARGIN_MS,
    logger: options.logger,
    ...(options.forceExit ? { forceExit: options.forceExit } : {}),
    shutdown: (reason) => supervisor.stop(reason),
  });
  try {
    await supervisor.start();
  } catch (err) {
    options.logger.error('supervisor failed to start', { error: err });
    await supervisor.stop('start failed');
    shutdown.dispose();
    return 1;
  }
  const code = await supervisor.done;
  shutdown.dispose();
  return code;
}
