/**
 * How protean stream, group and consumer names become JetStream names. JetStream stream,
 * consumer and KV key names allow only a few characters and subjects treat `.` as a separator,
 * so every byte outside [A-Za-z0-9-] is written as `_` and two hex digits: the mapping is
 * one-to-one, so two protean names never share a JetStream stream.
 */

/** `shop::order` → `shop_3a_3aorder`. */
export function natsToken(name: string): string {
  let out = '';
  for (const byte of Buffer.from(name, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9-]/.test(char) ? char : `_${byte.toString(16).padStart(2, '0')}`;
  }
  return out;
}

/** The inverse of `natsToken`, for names read back from the server. */
export function fromNatsToken(token: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < token.length; i += 1) {
    if (token[i] === '_') {
      bytes.push(parseInt(token.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(token.charCodeAt(i));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

export interface NatsStreamNames {
  /** The JetStream stream holding the protean stream's messages. */
  stream: string;
  /** The one subject that stream listens on. */
  subject: string;
  /** The JetStream stream holding its dead letters. */
  dlqStream: string;
  dlqSubject: string;
}

export class NatsNaming {
  constructor(
    private readonly streamPrefix: string,
    private readonly subjectPrefix: string,
  ) {}

  stream(stream: string): NatsStreamNames {
    const name = `${this.streamPrefix}${natsToken(stream)}`;
    // `natsToken` never ends a name in a bare `_dlq` (it writes `_` as `_5f`), so no protean
    // stream can collide with another one's dead-letter stream.
    return { stream: name, subject: `${this.subjectPrefix}.${name}`, dlqStream: `${name}_dlq`, dlqSubject: `${this.subjectPrefix}.${name}_dlq` };
  }

  /** The durable pull consumer that is the protean consumer group. */
  durable(group: string): string {
    return natsToken(group);
  }

  /** KV key of one protean consumer's membership record in a group. */
  memberKey(stream: string, group: string, consumer: string): string {
    return `${this.groupKeyPrefix(stream, group)}.${natsToken(consumer)}`;
  }

  groupKeyPrefix(stream: string, group: string): string {
    return `${this.stream(stream).stream}.${natsToken(group)}`;
  }

  /** The KV bucket holding the consumers of every group this broker serves. */
  get membersBucket(): string {
    return `${this.streamPrefix}protean_consumers`;
  }
}
