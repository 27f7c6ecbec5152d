/**
 * Argument checks shared by every broker, run before any I/O so a caller's bug surfaces as a
 * `BrokerArgumentError` naming the method and argument, never as an adapter's cryptic reply.
 */
import { BrokerArgumentError } from './broker-argument.error.js';
import type { OutgoingMessage, ReceivedMessage } from './broker.js';

export class BrokerArgumentChecks {
  constructor(private readonly brokerName: string) {}

  name(method: string, argument: string, value: unknown): void {
    if (typeof value !== 'string' || value.trim() === '') {
      this.fail(method, argument, `must be a non-empty string, got ${describe(value)}`);
    }
  }

  count(method: string, argument: string, value: unknown, min = 1): void {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
      this.fail(method, argument, `must be an integer >= ${min}, got ${describe(value)}`);
    }
  }

  ids(method: string, value: unknown): void {
    if (!Array.isArray(value)) this.fail(method, 'ids', `must be an array of message ids, got ${describe(value)}`);
    (value as unknown[]).forEach((id, i) => this.name(method, `ids[${i}]`, id));
  }

  outgoing(method: string, argument: string, message: OutgoingMessage | undefined): void {
    if (!isObject(message)) this.fail(method, argument, `must be { stream, envelope }, got ${describe(message)}`);
    this.name(method, `${argument}.stream`, message.stream);
    this.envelope(method, `${argument}.envelope`, message.envelope);
  }

  received(method: string, argument: string, message: ReceivedMessage | undefined): void {
    if (!isObject(message)) this.fail(method, argument, `must be a message returned by read() or reclaim(), got ${describe(message)}`);
    this.name(method, `${argument}.id`, message.id);
    this.envelope(method, `${argument}.envelope`, message.envelope);
  }

  /** The parts every adapter relies on for routing; the rest of the envelope travels untouched. */
  envelope(method: string, argument: string, envelope: unknown): void {
    if (!isObject(envelope)) this.fail(method, argument, `must be a message envelope { data, metadata }, got ${describe(envelope)}`);
    if (!isObject(envelope.data)) this.fail(method, `${argument}.data`, `must be an object, got ${describe(envelope.data)}`);
    const metadata = envelope.metadata;
    if (!isObject(metadata) || !isObject(metadata.headers)) {
      this.fail(method, `${argument}.metadata.headers`, 'is missing; build envelopes with the messages/ helpers');
    }
    const headers = metadata.headers as Record<string, unknown>;
    this.name(method, `${argument}.metadata.headers.id`, headers.id);
    this.name(method, `${argument}.metadata.headers.type`, headers.type);
  }

  fail(method: string, argument: string, problem: string): never {
    throw new BrokerArgumentError(this.brokerName, method, argument, problem);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : String(value);
}
