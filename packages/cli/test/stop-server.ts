/** Ends a `protean-ts server` a test started: SIGTERM, then waits for its exit (no-op when it already ended). */
import type { ChildProcess } from 'node:child_process';

export async function stopServer(server: ChildProcess | null | undefined): Promise<void> {
  if (!server || server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise((resolve) => server.once('exit', resolve));
  server.kill('SIGTERM');
  await exited;
}
