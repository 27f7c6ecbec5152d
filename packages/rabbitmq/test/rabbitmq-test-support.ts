/** Helpers for the RabbitMQ adapter's tests: a vhost per file (from core's testing kit) and polling. */
export {
  createRabbitmqVhost as createVhost,
  deleteRabbitmqVhost as deleteVhost,
  rabbitmqUri as rabbitUri,
  RABBITMQ_HOST_URI,
  RABBITMQ_MANAGEMENT_URI,
} from '@protean-ts/conformance';

/** Polls until `check` is true; fails with `what` when `timeoutMs` passes first. */
export async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting until ${what}`);
}
