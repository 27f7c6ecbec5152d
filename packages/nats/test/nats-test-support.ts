/**
 * Helpers for the NATS adapter's tests: a stream prefix of their own per file, and removal of
 * every JetStream stream (with its consumers) and the membership bucket under it afterwards.
 */
import { randomUUID } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';

export const NATS_URI = 'nats://127.0.0.1:4222';

/** A stream_prefix no other test file uses: JetStream names allow letters, digits, `_` and `-`. */
export function uniquePrefix(label: string): string {
  return `ptest-${label}-${randomUUID().slice(0, 8)}-`;
}

export async function deleteStreams(prefix: string, uri = NATS_URI): Promise<void> {
  const nc = await connect({ servers: new URL(uri).host });
  try {
    const jsm = await jetstreamManager(nc);
    for await (const name of jsm.streams.names()) {
      if (name.startsWith(prefix) || name === `KV_${prefix}protean_consumers`) await jsm.streams.delete(name).catch(() => undefined);
    }
  } finally {
    await nc.close();
  }
}

/** Polls until `check` is true; fails with `what` when `timeoutMs` passes first. */
export async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting until ${what}`);
}
