/**
 * The inbox of the memory provider, with the PostgreSQL semantics: `enter` decides against the
 * committed checkpoints and stages the move in the transaction; the provider checks staged moves
 * again at commit (a concurrent unit may have moved the key meanwhile: that is a version conflict,
 * and the rerun finds the message a duplicate) and applies them with the unit's other writes.
 */
import { ExpectedVersionError } from '../../errors/expected-version.error.js';
import type { MessagePosition } from '../../messages/envelope.js';
import type { ProviderTransaction } from '../../ports/database-provider.js';
import type {
  InboxCheckpointRecord,
  InboxCleanup,
  InboxEntry,
  InboxPassedRecord,
  InboxStore,
  InboxSubscriptionTotal,
  InboxVerdict,
  PositionPass,
} from '../../ports/inbox-store.js';
import { MemoryTransaction } from './memory-transaction.js';
import type { StagedInboxWrite } from './staged-writes.js';

export type { StagedInboxWrite } from './staged-writes.js';

interface PassedRecord {
  subscription: string;
  key: string;
  sequence: number;
  reason: string;
  brokerMessageId: string | null;
  at: number;
}

/** Positions recorded per jump over a gap; more are jumped over but not recorded. */
const MAX_RECORDED_GAP = 1000;

/** Who a checkpoint belongs to and when it last moved, for observers (`positions`). */
interface CheckpointOwner {
  subscription: string;
  key: string;
  updatedAt: number;
}

export class MemoryInboxStore implements InboxStore {
  private readonly checkpoints = new Map<string, number>();
  private readonly checkpointOwners = new Map<string, CheckpointOwner>();
  private readonly passed = new Map<string, PassedRecord>();
  private readonly messages = new Map<string, number>();

  constructor(
    private readonly providerName: string,
    private readonly now: () => number = Date.now,
  ) {}

  async enter(tx: ProviderTransaction, entry: InboxEntry): Promise<InboxVerdict> {
    const staging = this.own(tx);
    staging.assertActive('record a handled message in the inbox');
    const { subscription, position } = entry;
    if (!position) return this.enterById(staging, subscription, entry.messageId);
    const cpKey = checkpointKey(subscription, position.key);
    const committed = this.checkpoints.get(cpKey) ?? null;
    // A unit may enter several positions of one key (a projection rebuild does): it sees its own moves.
    const current = stagedCheckpoint(staging, cpKey) ?? committed;
    const next = current === null ? position.sequence === 1 : current === position.sequence - 1;
    if (next || (entry.jumpGap && (current === null || current < position.sequence))) {
      staging.inboxWrites.push(this.moveTo(subscription, position, current, committed, entry.jumpGap === true));
      return { kind: 'next' };
    }
    if (current !== null && current >= position.sequence) {
      const passedKey = positionKey(subscription, position.key, position.sequence);
      const passed = this.passed.get(passedKey);
      if (!passed) return { kind: 'duplicate', checkpoint: current };
      if (passed.reason === 'dead-lettered' && passed.brokerMessageId === entry.brokerMessageId) return { kind: 'dead-lettered' };
      staging.inboxWrites.push({
        check: () => {
          if (!this.passed.has(passedKey)) throw new ExpectedVersionError('inbox passed position', passedKey, position.sequence, null);
        },
        apply: () => this.passed.delete(passedKey),
      });
      return { kind: 'late', passedAs: passed.reason };
    }
    return { kind: 'early', checkpoint: current };
  }

  async pass(subscription: string, passes: readonly PositionPass[]): Promise<boolean[]> {
    return passes.map((pass) => {
      const cpKey = checkpointKey(subscription, pass.key);
      const current = this.checkpoints.get(cpKey) ?? null;
      const next = current === null ? pass.sequence === 1 : current === pass.sequence - 1;
      const passedKey = positionKey(subscription, pass.key, pass.sequence);
      if (!next && pass.reason !== undefined && this.passed.has(passedKey)) {
        // A late message (its position passed before) that failed again: its record stays, renewed.
        this.passed.set(passedKey, { ...this.passed.get(passedKey)!, reason: pass.reason, brokerMessageId: pass.brokerMessageId ?? null, at: this.now() });
        return true;
      }
      if (!next) return false;
      this.moveCheckpoint(subscription, pass.key, pass.sequence);
      if (pass.reason !== undefined) {
        this.passed.set(positionKey(subscription, pass.key, pass.sequence), {
          subscription,
          key: pass.key,
          sequence: pass.sequence,
          reason: pass.reason,
          brokerMessageId: pass.brokerMessageId ?? null,
          at: this.now(),
        });
      }
      return true;
    });
  }

  async checkpoint(subscription: string, key: string): Promise<number | null> {
    return this.checkpoints.get(checkpointKey(subscription, key)) ?? null;
  }

  async cleanup(options: InboxCleanup): Promise<number> {
    const before = options.before.getTime();
    let removed = 0;
    for (const records of [this.passed, this.messages] as Map<string, { at: number } | number>[]) {
      for (const [key, value] of records) {
        if (removed >= options.batchSize) return removed;
        const at = typeof value === 'number' ? value : value.at;
        if (at < before) {
          records.delete(key);
          removed += 1;
        }
      }
    }
    return removed;
  }

  async forget(subscription: string): Promise<number> {
    const prefix = `${subscription}\u0000`;
    let removed = 0;
    for (const records of [this.checkpoints, this.passed, this.messages] as Map<string, unknown>[]) {
      for (const key of [...records.keys()]) {
        if (key.startsWith(prefix) && records.delete(key)) removed += 1;
      }
    }
    for (const key of [...this.checkpointOwners.keys()]) if (key.startsWith(prefix)) this.checkpointOwners.delete(key);
    return removed;
  }

  async positions(keys: readonly string[]): Promise<{ checkpoints: InboxCheckpointRecord[]; passed: InboxPassedRecord[] }> {
    const wanted = new Set(keys);
    const checkpoints: InboxCheckpointRecord[] = [];
    for (const [cpKey, owner] of this.checkpointOwners) {
      if (!wanted.has(owner.key)) continue;
      checkpoints.push({ subscription: owner.subscription, key: owner.key, sequence: this.checkpoints.get(cpKey)!, updatedAt: new Date(owner.updatedAt) });
    }
    const passed: InboxPassedRecord[] = [];
    for (const record of this.passed.values()) {
      if (!wanted.has(record.key)) continue;
      passed.push({ subscription: record.subscription, key: record.key, sequence: record.sequence, reason: record.reason, passedAt: new Date(record.at) });
    }
    return { checkpoints, passed };
  }

  async totals(): Promise<InboxSubscriptionTotal[]> {
    const totals = new Map<string, number>();
    for (const [cpKey, owner] of this.checkpointOwners) totals.set(owner.subscription, (totals.get(owner.subscription) ?? 0) + this.checkpoints.get(cpKey)!);
    for (const key of this.messages.keys()) {
      const subscription = key.slice(0, key.indexOf('\u0000'));
      totals.set(subscription, (totals.get(subscription) ?? 0) + 1);
    }
    return [...totals].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([subscription, total]) => ({ subscription, total }));
  }

  /** Forgets everything (the provider's truncate): sequences restart with the outbox's. */
  clear(): void {
    this.checkpointOwners.clear();
    this.checkpoints.clear();
    this.passed.clear();
    this.messages.clear();
  }

  private enterById(staging: MemoryTransaction, subscription: string, messageId: string): InboxVerdict {
    const key = checkpointKey(subscription, messageId);
    if (this.messages.has(key)) return { kind: 'duplicate', checkpoint: null };
    staging.inboxWrites.push({
      check: () => {
        if (this.messages.has(key)) throw new ExpectedVersionError('inbox message', key, -1, 0);
      },
      apply: () => this.messages.set(key, this.now()),
    });
    return { kind: 'next' };
  }

  /** `from`: the checkpoint moved from (maybe staged by this unit); `base`: the committed one it must still be at commit. */
  private moveTo(subscription: string, position: MessagePosition, from: number | null, base: number | null, jump: boolean): StagedInboxWrite {
    const cpKey = checkpointKey(subscription, position.key);
    return {
      move: { checkpointKey: cpKey, sequence: position.sequence },
      check: () => {
        const current = this.checkpoints.get(cpKey) ?? null;
        if (current !== base) throw new ExpectedVersionError('inbox checkpoint', cpKey, base ?? -1, current);
      },
      apply: () => {
        this.moveCheckpoint(subscription, position.key, position.sequence);
        if (!jump) return;
        const first = (from ?? 0) + 1;
        const last = Math.min(position.sequence - 1, first + MAX_RECORDED_GAP - 1);
        for (let sequence = first; sequence <= last; sequence++) {
          this.passed.set(positionKey(subscription, position.key, sequence), {
            subscription,
            key: position.key,
            sequence,
            reason: 'gap timed out',
            brokerMessageId: null,
            at: this.now(),
          });
        }
      },
    };
  }

  private moveCheckpoint(subscription: string, key: string, sequence: number): void {
    const cpKey = checkpointKey(subscription, key);
    this.checkpoints.set(cpKey, sequence);
    this.checkpointOwners.set(cpKey, { subscription, key, updatedAt: this.now() });
  }

  private own(tx: ProviderTransaction): MemoryTransaction {
    if (!(tx instanceof MemoryTransaction) || tx.providerName !== this.providerName) {
      throw new TypeError(`The inbox of memory database "${this.providerName}" was given a transaction of "${tx?.providerName ?? 'unknown'}"`);
    }
    return tx;
  }
}

function stagedCheckpoint(staging: MemoryTransaction, cpKey: string): number | null {
  for (let i = staging.inboxWrites.length - 1; i >= 0; i--) {
    const move = staging.inboxWrites[i]!.move;
    if (move?.checkpointKey === cpKey) return move.sequence;
  }
  return null;
}

function checkpointKey(subscription: string, key: string): string {
  return `${subscription}\u0000${key}`;
}

function positionKey(subscription: string, key: string, sequence: number): string {
  return `${subscription}\u0000${key}\u0000${sequence}`;
}
