/**
 * The Observatory on the memory database: its message flow and journeys are read through the
 * outbox and inbox ports, so a domain without PostgreSQL shows its published streams, its
 * subscriptions' totals and a request's journey with each handling — not a "cannot read" note.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BaseAggregate, BaseCommand, BaseCommandHandler, BaseEvent, BaseEventHandler, Domain, field, handle } from '@protean-ts/core';
import { Engine } from '@protean-ts/server';
import { startObservatory, type RunningObservatory } from '../src/observatory/observatory-server.js';
import { eventually } from './eventually.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'protean-observatory-memory-'));
const domain = new Domain('Kiosk', {
  root,
  config: {
    databases: { default: { provider: 'memory' } },
    brokers: { default: { provider: 'inline' } },
    event_processing: 'async',
    outbox: { tick_interval: 0.05 },
    server: { tick_interval: 0.05, stream_subscription: { blocking_timeout_ms: 50 } },
  },
});
const seen: string[] = [];

@domain.aggregate()
class Sale extends BaseAggregate {
  @field.string({ required: true }) item!: string;
}

@domain.event({ partOf: Sale })
class Sold extends BaseEvent {
  @field.string({ required: true }) item!: string;
}

@domain.command({ partOf: Sale })
class Sell extends BaseCommand {
  @field.string({ required: true }) item!: string;
}

@domain.commandHandler({ partOf: Sale })
export class Till extends BaseCommandHandler {
  @handle(Sell) async sell(command: Sell): Promise<void> {
    const sale = Sale.create({ item: command.item });
    sale.raise(Sold.create({ item: command.item }));
    await domain.repositoryFor(Sale).add(sale);
  }
}

@domain.eventHandler({ partOf: Sale })
export class Receipts extends BaseEventHandler {
  @handle(Sold) async onSold(event: Sold): Promise<void> {
    seen.push(event.item);
  }
}

interface Snapshot {
  flow: { streams: { database: string; stream: string; published: number }[]; subscriptions: { subscription: string; total: number }[]; unread: string[] };
}
interface Journey {
  steps: { database: string; messageType: string; status: string; handlings: { subscription: string; state: string }[] }[];
  unread: string[];
}

describe('the Observatory on the memory database', () => {
  let engine: Engine;
  let observatory: RunningObservatory;
  const errors: unknown[] = [];

  beforeAll(async () => {
    await domain.init();
    engine = new Engine(domain, { health: false });
    await engine.start();
    observatory = await startObservatory({
      domain,
      module: 'kiosk.ts',
      host: '127.0.0.1',
      port: 0,
      refreshMs: 500,
      token: null,
      onError: (e) => errors.push(e),
    });
  });
  afterAll(async () => {
    await observatory?.close();
    await engine?.stop();
  });

  const get = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${observatory.url}${path}`);
    expect(response.status, path).toBe(200);
    return (await response.json()) as T;
  };

  it('serves the message catalog beside the domain map', async () => {
    const catalog = await get<{ events: { type: string; published: boolean; consumers: { kind: string; name: string }[] }[]; commands: { type: string }[] }>(
      'api/catalog',
    );
    expect(catalog.events).toEqual([
      expect.objectContaining({ type: 'Kiosk.Sold.v1', published: false, consumers: [expect.objectContaining({ kind: 'eventHandler', name: 'Receipts' })] }),
    ]);
    expect(catalog.commands.map((c) => c.type)).toEqual(['Kiosk.Sell.v1']);
  });

  it("serves the flow and a request's journey from the memory outbox and inbox", async () => {
    const commandId = await domain.process<string>(Sell.create({ item: 'tea' }), { asynchronous: true });
    await eventually(async () => seen.includes('tea'), 20_000, 'the event handled');

    const snapshot = await eventually(async () => {
      const data = await get<Snapshot>('api/snapshot');
      return data.flow.streams.length === 2 && data.flow.subscriptions.length === 2 ? data : null;
    });
    expect(snapshot.flow.unread).toEqual([]);
    expect(snapshot.flow.streams).toEqual([
      { database: 'default', stream: 'kiosk::sale', published: 1, perSecond: 0.1 },
      { database: 'default', stream: 'kiosk::sale:command', published: 1, perSecond: 0.1 },
    ]);
    expect(snapshot.flow.subscriptions.map(({ subscription, total }) => ({ subscription, total }))).toEqual([
      { subscription: 'Receipts', total: 1 },
      { subscription: 'Till', total: 1 },
    ]);

    // The command's id is the correlation id of everything it set off.
    const journey = await eventually(async () => {
      const data = await get<Journey>(`api/journey?correlation=${encodeURIComponent(commandId)}`);
      return data.steps.every((step) => step.handlings.every((h) => h.state === 'handled')) ? data : null;
    });
    expect(journey.unread).toEqual([]);
    expect(
      journey.steps.map(({ database, messageType, status, handlings }) => ({ database, messageType, status, handlings: handlings.map((h) => h.subscription) })),
    ).toEqual([
      { database: 'default', messageType: 'Kiosk.Sell.v1', status: 'published', handlings: ['Till'] },
      { database: 'default', messageType: 'Kiosk.Sold.v1', status: 'published', handlings: ['Receipts'] },
    ]);
    expect(errors).toEqual([]);
  });
});
