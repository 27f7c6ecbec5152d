/**
 * Upcasters on the memory event store: a stream written while Deposited was v1 loads after the
 * class moved to v3 (v1 → v2 → v3), the stored records stay as written, `domain.init()` refuses
 * inconsistent upcasters by name, and a version with no path fails the load by name.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  BaseEvent,
  ChecksumMismatchError,
  configureLogging,
  Domain,
  DomainModelError,
  field,
  InvalidUpcastResultError,
  MissingUpcasterError,
  RegistrationError,
  UnknownMessageTypeError,
  UpcasterFailedError,
  serializeMessage,
  type MemoryProvider,
  type StoredEvent,
} from '../../src/index.js';
import { envelopeChecksum, type MessageEnvelope, type MessageMetadata } from '../../src/messages/index.js';
import { makeBank, makeUpcastingBank, type UpcasterStep } from '@protean-ts/conformance/fixtures';

const memory = { databases: { default: { provider: 'memory' } }, brokers: { default: { provider: 'inline' } } };
const open: Domain[] = [];
let restoreLogging: ReturnType<typeof configureLogging> | undefined;

async function started<D extends { domain: Domain }>(built: D): Promise<D> {
  restoreLogging ??= configureLogging({ sink: () => {} });
  await built.domain.init({ config: memory });
  open.push(built.domain);
  return built;
}

afterEach(async () => {
  for (const domain of open.splice(0)) await domain.close();
  if (restoreLogging) configureLogging(restoreLogging);
  restoreLogging = undefined;
});

const storeOf = (domain: Domain) => (domain.providers.get('default') as MemoryProvider).eventStore;

/** The records of an account the v1 bank wrote: opened, deposited 10 and 5 (v1, whole euros), withdrew 3. */
async function writtenByTheV1Bank(): Promise<{ id: string; records: StoredEvent[] }> {
  const old = await started(makeBank());
  const account = old.Account.open('Ann');
  account.deposit(10);
  account.deposit(5);
  account.withdraw(3);
  await old.domain.repositoryFor(old.Account).add(account);
  const records = await storeOf(old.domain).readStream(`bank::account-${account.id}`);
  return { id: account.id, records };
}

/** The same records in the event store of `domain` (what a deployment of the new version finds). */
async function copyInto(domain: Domain, stream: string, records: readonly StoredEvent[]): Promise<void> {
  const tx = await domain.providers.get('default')!.begin();
  await storeOf(domain).append(
    tx,
    stream,
    records.map(({ messageId, type, data, metadata }) => ({ messageId, type, data, metadata })),
    { expectedVersion: -1 },
  );
  await tx.commit();
}

async function upgradedBankWith(steps?: readonly UpcasterStep[]) {
  const { id, records } = await writtenByTheV1Bank();
  const bank = await started(makeUpcastingBank(steps));
  const stream = `bank::account-${id}`;
  await copyInto(bank.domain, stream, records);
  return { bank, id, stream, records };
}

describe('upcasters (memory event store)', () => {
  it('a stream written at Deposited v1 loads after the class moved to v3, through v1 → v2 → v3', async () => {
    const { bank, id } = await upgradedBankWith();
    const account = await bank.domain.repositoryFor(bank.Account).get(id);
    expect(account.owner).toBe('Ann');
    expect(account.balanceCents).toBe(1200);
    expect(account._version).toBe(3);
    // The upcaster saw the stored envelope's metadata (type v1), once per stored v1 event.
    expect(bank.seenMetadata).toEqual(['Bank.Deposited.v1', 'Bank.Deposited.v1']);
  });

  it('stored events are never rewritten: the records read back byte for byte as written, new ones are v3', async () => {
    const { bank, id, stream } = await upgradedBankWith();
    const records = structuredClone(await storeOf(bank.domain).readStream(stream));
    const repo = bank.domain.repositoryFor(bank.Account);
    const account = await repo.get(id);
    expect(await storeOf(bank.domain).readStream(stream)).toEqual(records);
    expect(records.map((r) => r.type)).toEqual(['Bank.Opened.v1', 'Bank.Deposited.v1', 'Bank.Deposited.v1', 'Bank.Withdrawn.v1']);
    expect(records[1]!.data).toMatchObject({ amount: 10 });

    account.deposit(250);
    await repo.add(account);
    const after = await storeOf(bank.domain).readStream(stream);
    expect(after.slice(0, 4)).toEqual(records);
    expect(after[4]!.type).toBe('Bank.Deposited.v3');
    expect((await repo.get(id)).balanceCents).toBe(1450);
  });

  it('a delivered v1 envelope is handled by the v3 handler as the upcast event', async () => {
    const { bank, records } = await upgradedBankWith();
    const envelope = { data: records[1]!.data, metadata: records[1]!.metadata as unknown as MessageMetadata };
    expect(await bank.domain.handleMessage(envelope)).toBe('handled');
    expect(bank.handled).toEqual([{ amountCents: 1000, currency: 'EUR' }]);
  });

  it('the checksum is checked against the stored data before upcasting', async () => {
    const { id, records } = await writtenByTheV1Bank();
    const bank = await started(makeUpcastingBank());
    const altered = records.map((r, i) => (i === 1 ? { ...r, data: { ...r.data, amount: 1_000_000 } } : r));
    await copyInto(bank.domain, `bank::account-${id}`, altered);
    await expect(bank.domain.repositoryFor(bank.Account).get(id)).rejects.toThrow(ChecksumMismatchError);
  });

  it('an event stored at a version with no path to the current one fails the load with MissingUpcasterError', async () => {
    const { bank, id } = await upgradedBankWith(['2->3']);
    const load = bank.domain.repositoryFor(bank.Account).get(id);
    await expect(load).rejects.toThrow(MissingUpcasterError);
    await expect(load).rejects.toThrow(
      /"Bank\.Deposited\.v1" has no upcaster path from v1 to Deposited v3; add @domain\.upcaster\(\{ event: Deposited, from: 1/,
    );
  });

  it('an upcaster that throws fails the load naming the upcaster, the stored type and version, and the stream position', async () => {
    const { bank, id, stream } = await upgradedBankWith();
    // DepositInCents records each envelope it sees: make that throw, as a buggy upcaster would.
    bank.seenMetadata.push = () => {
      throw new TypeError('cannot read amount');
    };
    const load = bank.domain.repositoryFor(bank.Account).get(id);
    await expect(load).rejects.toThrow(UpcasterFailedError);
    await expect(load).rejects.toThrow(
      `Upcaster DepositInCents (v1 → v2) threw on stored event "Bank.Deposited.v1" (version 1) at stream ${stream} position 1: cannot read amount`,
    );
    await expect(load).rejects.toMatchObject({ upcaster: 'DepositInCents', storedType: 'Bank.Deposited.v1', fromVersion: 1, stream, position: 1 });
  });

  it('an event stored by a newer version (v4 while the class is at v3) stays an UnknownMessageTypeError (not deployed yet)', async () => {
    const bank = await started(makeUpcastingBank());
    const account = bank.Account.create({});
    account.deposit(5);
    const envelope = serializeMessage(account.pendingEvents()[0]!);
    envelope.metadata.headers.type = 'Bank.Deposited.v4';
    envelope.metadata.envelope.checksum = envelopeChecksum(envelope);
    await expect(bank.domain.handleMessage(envelope)).rejects.toThrow(UnknownMessageTypeError);
    await expect(bank.domain.handleMessage(envelope)).rejects.toThrow(/"Bank\.Deposited\.v4".*registered: .*Bank\.Deposited\.v3/);
  });

  it('an upcaster that returns no data object is an InvalidUpcastResultError naming it', () => {
    const domain = new Domain('Checks');
    @domain.event({ version: 2 })
    class Paid extends BaseEvent {}
    domain.upcaster({ event: Paid, from: 1, to: 2 })(
      class Forgetful {
        upcast(): Record<string, unknown> {
          return undefined as never;
        }
      },
    );
    const stored = { data: { cents: 1 }, metadata: { headers: { type: 'Checks.Paid.v1' }, envelope: { specversion: '1.0' } } } as unknown as MessageEnvelope;
    expect(() => domain.upcastStored(stored)).toThrow(InvalidUpcastResultError);
    expect(() => domain.upcastStored(stored)).toThrow(/Upcaster Forgetful returned undefined for stored event "Checks.Paid.v1"/);
  });
});

describe('upcaster checks at domain.init()', () => {
  type Step = [from: number, to: number, name: string];
  function modelWith(version: number, steps: readonly Step[]) {
    const domain = new Domain('Checks');
    @domain.event({ version })
    class Paid extends BaseEvent {
      @field.integer() cents?: number;
    }
    for (const [from, to, name] of steps) {
      const cls = {
        [name]: class {
          upcast(data: Record<string, unknown>) {
            return data;
          }
        },
      }[name]!;
      domain.upcaster({ event: Paid, from, to })(cls);
    }
    return domain;
  }
  const problems = (version: number, steps: readonly Step[]) => modelWith(version, steps).upcasters.problems();

  it('accepts chains that end at the current version, from every version they read', () => {
    expect(
      problems(3, [
        [1, 2, 'A'],
        [2, 3, 'B'],
      ]),
    ).toEqual([]);
    expect(
      problems(3, [
        [1, 3, 'Skip'],
        [2, 3, 'B'],
      ]),
    ).toEqual([]);
  });

  it('refuses two upcasters from the same version of one event (duplicate)', () => {
    expect(
      problems(2, [
        [1, 2, 'A'],
        [1, 2, 'B'],
      ]),
    ).toEqual(['Paid: two upcasters from v1 (A, B); keep one']);
  });

  it('refuses a cycle, naming its versions and upcasters', () => {
    const found = problems(2, [
      [1, 2, 'Up'],
      [2, 1, 'Down'],
    ]);
    expect(found).toContain('Paid: upcasters form a cycle v1 → v2 → v1 (Up, Down); each must go up to the current version v2');
    expect(found).toContain('Down (upcaster): from v2 to v1 does not go up; from must be below to');
  });

  it('refuses a chain that does not end at the current version (non-convergent)', () => {
    expect(problems(3, [[1, 2, 'A']])).toEqual([
      'Paid: the chain from v1 (A) stops at v2, not at the current version v3; add @domain.upcaster({ event: Paid, from: 2, to: ... })',
    ]);
  });

  it('refuses to above the current version, and from >= to', () => {
    expect(problems(2, [[1, 3, 'TooFar']])).toEqual([
      "TooFar (upcaster): to v3 is above Paid's current version v2; raise @domain.event({ version }) or lower to",
    ]);
    // v2 → v2 also loops on itself, so it is a cycle too.
    expect(problems(3, [[2, 2, 'Same']])).toEqual([
      'Same (upcaster): from v2 to v2 does not go up; from must be below to',
      'Paid: upcasters form a cycle v2 → v2 (Same); each must go up to the current version v3',
    ]);
    expect(
      problems(3, [
        [3, 2, 'Down'],
        [2, 3, 'Up'],
      ]),
    ).toContain('Down (upcaster): from v3 to v2 does not go up; from must be below to');
  });

  it('refuses an event that is not registered and versions that are not integers >= 1', () => {
    const domain = new Domain('Checks');
    class Stray extends BaseEvent {}
    domain.upcaster({ event: Stray, from: 1, to: 2 })(
      class Lost {
        upcast(d: Record<string, unknown>) {
          return d;
        }
      },
    );
    expect(domain.upcasters.problems()).toEqual(['Lost (upcaster): event Stray is not a registered event; register it with @domain.event']);
    expect(problems(2, [[0.5, 2, 'Half']])).toEqual(['Half (upcaster): from and to must be integers >= 1 (got from 0.5, to 2)']);
  });

  it('domain.init() rejects with a DomainModelError listing the upcaster problems', async () => {
    const domain = modelWith(3, [[1, 2, 'A']]);
    await expect(domain.init({ config: memory })).rejects.toThrow(DomainModelError);
    await expect(domain.init({ config: memory })).rejects.toThrow(/the chain from v1 \(A\) stops at v2/);
  });

  it('refuses at registration a class without upcast(), and any upcaster after init', async () => {
    const domain = new Domain('Checks');
    @domain.event({ version: 2 })
    class Paid extends BaseEvent {}
    expect(() => domain.upcaster({ event: Paid, from: 1, to: 2 })(class NoMethod {} as never)).toThrow(/NoMethod cannot be an upcaster: it has no upcast/);
    await started({ domain });
    expect(() =>
      domain.upcaster({ event: Paid, from: 1, to: 2 })(
        class Late {
          upcast(d: Record<string, unknown>) {
            return d;
          }
        },
      ),
    ).toThrow(RegistrationError);
  });
});
