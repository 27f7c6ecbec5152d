/** A small ledger domain whose envelopes the malformed-envelope tests break, and re-signing a changed envelope. */
import { BaseAggregate, BaseEvent, BaseEventHandler, Domain, field, handle, withPosition, type MessageEnvelope } from '../../src/index.js';
import { envelopeChecksum } from '../../src/messages/envelope-checksum.js';
import { serializeMessage } from '../../src/messages/serialize-message.js';

/** What the handler was given (the tests check handling through handleMessage's answer). */
const handled: string[] = [];

export function makeLedger(config?: Record<string, unknown>) {
  const domain = new Domain('Ledger', config ? { config } : {});

  @domain.aggregate()
  class Account extends BaseAggregate {
    @field.string() owner?: string;
  }

  @domain.event({ partOf: Account })
  class Credited extends BaseEvent {
    @field.identifier({ required: true }) accountId!: string;
    @field.integer({ required: true }) amount!: number;
    @field.string() note?: string;
    @field.list({ of: 'string' }) tags?: string[];
    @field.dict() extra?: Record<string, unknown>;
  }

  @domain.eventHandler({ partOf: Account })
  class Bookkeeper extends BaseEventHandler {
    @handle(Credited) onCredited(event: Credited): void {
      handled.push(`${event.accountId}:${event.amount}`);
    }
  }

  const credited = (values: { amount?: number; note?: string; tags?: string[]; extra?: Record<string, unknown> } = {}): MessageEnvelope => {
    const account = Account.create({ owner: 'Ann' });
    const event = account.raise(Credited.create({ accountId: account.id, amount: values.amount ?? 5, ...values }));
    return withPosition(serializeMessage(event), { key: `ledger::account-${account.id}`, sequence: 1 });
  };
  return { domain, Credited, Bookkeeper, credited };
}

export function resign(envelope: MessageEnvelope): MessageEnvelope {
  envelope.metadata.envelope.checksum = envelopeChecksum(envelope);
  return envelope;
}
