/**
 * A one-aggregate domain for the consumer-guarantee tests, built fresh per call: a Note raises
 * `Noted { n }` (and `Flagged { n }`) events, and the `Effects` event handler, which has no dedup
 * or ordering code of its own, runs whatever `probe.onNoted` says and records each run.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BaseAggregate, BaseEvent, BaseEventHandler, Domain, field, handle, type ConfigOverrides } from '@protean-ts/core';
import type { TempDatabase } from './real-services.js';

export interface NotesProbe {
  /** `n` of every handler run (retries included), in start order. */
  runs: number[];
  /** `n` of every handler run that returned, in finish order. */
  handled: number[];
  /** Runs on each Noted before it is recorded as handled; throw to fail it. */
  onNoted: (n: number, noteId: string) => Promise<void> | void;
}

export function newProbe(): NotesProbe {
  return { runs: [], handled: [], onNoted: () => undefined };
}

export function makeNotes(name: string, config: ConfigOverrides, probe: NotesProbe) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'protean-notes-'));
  const domain = new Domain(name, { root, config });

  @domain.aggregate()
  class Note extends BaseAggregate {
    @field.integer({ required: true }) count!: number;
  }

  @domain.event({ partOf: Note })
  class Noted extends BaseEvent {
    @field.identifier({ required: true }) noteId!: string;
    @field.integer({ required: true }) n!: number;
  }

  /** A second type in the same stream (the one a broker may refuse to publish). */
  @domain.event({ partOf: Note })
  class Flagged extends BaseEvent {
    @field.identifier({ required: true }) noteId!: string;
    @field.integer({ required: true }) n!: number;
  }

  @domain.eventHandler({ partOf: Note })
  class Effects extends BaseEventHandler {
    @handle(Noted) async onNoted(event: Noted): Promise<void> {
      probe.runs.push(event.n);
      await probe.onNoted(event.n, event.noteId);
      probe.handled.push(event.n);
    }
  }

  /** One commit of a note raising an event per `n` (Noted, or Flagged for the ns in `flagged`). */
  async function commit(note: InstanceType<typeof Note> | null, ns: number[], flagged: number[] = []): Promise<InstanceType<typeof Note>> {
    const target = note ?? Note.create({ count: 0 });
    for (const n of ns) {
      target.count += 1;
      const Type = flagged.includes(n) ? Flagged : Noted;
      target.raise(Type.create({ noteId: target.id, n }));
    }
    await domain.repositoryFor(Note).add(target);
    return target;
  }

  return { domain, Note, Noted, Flagged, Effects, commit, stream: `${name.toLowerCase()}::note` };
}

export interface NotesSettings {
  streamSubscription?: Record<string, unknown>;
  outbox?: Record<string, unknown>;
  inbox?: Record<string, unknown>;
  poolSize?: number;
}

/** PostgreSQL and Redis for one test, short ticks and one retry unless `settings` say otherwise. */
export function notesConfig(db: TempDatabase, broker: Record<string, unknown>, settings: NotesSettings = {}): ConfigOverrides {
  return {
    event_processing: 'async',
    databases: { default: { provider: 'postgresql', database_uri: db.uri, pool_size: settings.poolSize ?? 4 } },
    brokers: { default: { provider: 'redis', ...broker } },
    server: {
      health: { port: 0 },
      tick_interval: 0.05,
      stream_subscription: { blocking_timeout_ms: 50, max_retries: 1, retry_delay_seconds: 0.02, ...settings.streamSubscription },
    },
    outbox: { tick_interval: 0.05, ...settings.outbox },
    inbox: { enabled: true, ...settings.inbox },
  };
}

export async function setupTables(domain: Domain): Promise<void> {
  await domain.init();
  for (const provider of domain.providers.values()) await provider.setupSchema(domain.runtime.infrastructure.aggregateSchemas(), { outbox: true });
}
