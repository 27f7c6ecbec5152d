/**
 * One pull request on a durable JetStream consumer, at the protocol level. The client's
 * `fetch()` cannot ask without waiting (its `expires` is at least a second) and leaves a
 * request open on the server when abandoned; here a request either asks `no_wait` (answered at
 * once) or for exactly one message with the caller's block time, so no request outlives the
 * read that made it and no message is handed to an inbox nobody listens on.
 */
import { createInbox, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { parseDelivery, type NatsDelivery } from './nats-delivery.js';

/** Raised when the server says the consumer is gone or the request was refused (409). */
export class NatsPullRefusedError extends Error {
  override readonly name = 'NatsPullRefusedError';
}

/** No answer at all: the consumer does not exist (JetStream ignores such pulls) or the link dropped. */
export class NatsPullTimeoutError extends Error {
  override readonly name = 'NatsPullTimeoutError';
}

export interface PullRequest {
  batch: number;
  /** 0: answer at once with what is there; otherwise wait up to this long for the batch. */
  expiresMs: number;
}

/** How long past its expiry a waiting pull waits for the server's answer before it ends empty. */
const WAITING_PULL_GRACE_MS = 1_000;

/** Open pulls, so `close()` can end them (a blocked read then returns what it has). */
export class NatsPuller {
  private readonly open = new Set<Subscription>();
  private closed = false;

  constructor(
    private readonly nc: () => NatsConnection,
    private readonly graceMs: number,
  ) {}

  async pull(stream: string, durable: string, request: PullRequest): Promise<NatsDelivery[]> {
    const nc = this.nc();
    const inbox = createInbox();
    const sub = nc.subscribe(inbox);
    this.open.add(sub);
    const body = request.expiresMs > 0 ? { batch: request.batch, expires: request.expiresMs * 1_000_000 } : { batch: request.batch, no_wait: true };
    const got: NatsDelivery[] = [];
    let answered = false;
    // A waiting pull gets its 408 lazily: a busy server may expire it without one (seen on an idle
    // stream beside a busy one, which left reads of live messages hanging for the whole grace). So
    // a waiting pull ends quietly a second after it expired; the no_wait pull that starts every
    // read keeps the full grace and still tells a consumer that is gone. (A message the server
    // would still send it then is not lost: unacked, it comes back after ack_wait.)
    const waiting = request.expiresMs > 0;
    const timer = setTimeout(() => sub.unsubscribe(), request.expiresMs + (waiting ? Math.min(this.graceMs, WAITING_PULL_GRACE_MS) : this.graceMs));
    try {
      nc.publish(`$JS.API.CONSUMER.MSG.NEXT.${stream}.${durable}`, JSON.stringify(body), { reply: inbox });
      for await (const msg of sub) {
        answered = true;
        const status = statusOf(msg);
        if (status === null) {
          const delivery = parseDelivery(msg);
          if (delivery) got.push(delivery);
          if (got.length >= request.batch) break;
          continue;
        }
        if (status.code === 100) continue;
        // 404 no messages, 408 request expired: the pull is over.
        if (status.code === 404 || status.code === 408) break;
        throw new NatsPullRefusedError(`pull on consumer "${durable}" of stream "${stream}" refused: ${status.code} ${status.description}`);
      }
    } finally {
      clearTimeout(timer);
      this.open.delete(sub);
      sub.unsubscribe();
    }
    if (!answered && !waiting && !nc.isClosed() && !this.closed) {
      throw new NatsPullTimeoutError(`no answer to a pull on consumer "${durable}" of stream "${stream}" within ${request.expiresMs + this.graceMs} ms`);
    }
    return got;
  }

  /** Ends every open pull; they return what they had. */
  closeAll(): void {
    this.closed = true;
    for (const sub of this.open) sub.unsubscribe();
    this.open.clear();
  }
}

function statusOf(msg: Msg): { code: number; description: string } | null {
  const headers = msg.headers;
  if (!headers || msg.data.length > 0) return null;
  const code = headers.code;
  if (!code) return null;
  return { code, description: headers.description };
}
