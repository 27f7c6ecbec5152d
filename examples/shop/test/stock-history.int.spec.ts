/**
 * The event-sourced StockItem on PostgreSQL: the embedded default with its database switched to
 * a throw-away PostgreSQL database (tables created as `protean-ts db setup` creates them), so
 * the events go to protean_events in the same transactions as the other aggregates' rows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES, servicesUp } from '@protean-ts/conformance';
import { domain } from '../src/domain.js';
import { describeStockHistory } from './support/stock-history.js';
import { closeShop, openShop } from './support/shop-fixture.js';
import { createTempDatabase, type TempDatabase } from './support/temp-database.js';

const up = await servicesUp(POSTGRES);
let db: TempDatabase | undefined;
let tablesReady = false;

async function openOnPostgres(): Promise<void> {
  await openShop(
    { databases: { default: { provider: 'postgresql', database_uri: db!.uri, pool_size: 2 } } },
    {
      // The tables, before the in-process server starts reading them.
      beforeServer: async () => {
        expect(domain.providers.get('default')!.kind).toBe('postgresql');
        if (tablesReady) return;
        await domain.providers.get('default')!.setupSchema(domain.runtime.infrastructure.aggregateSchemas(), { outbox: true });
        tablesReady = true;
      },
    },
  );
}

describe.skipIf(!up)('on PostgreSQL', () => {
  beforeAll(async () => {
    db = await createTempDatabase('shop_stock');
  });
  afterAll(async () => {
    await closeShop();
    await db?.drop();
  });

  describeStockHistory('PostgreSQL', { open: openOnPostgres, close: closeShop });

  // Read behind the framework's back: what the scenarios above left in the tables.
  it('left the events in protean_events, the old one still at v1, and the snapshot in protean_snapshots', async () => {
    const kettle = await db!.query<{ type: string; position: string }>(
      "SELECT type, position FROM protean_events WHERE stream_name = 'shop::stock_item-KETTLE' ORDER BY position",
    );
    expect(kettle.map((row) => row.type)).toEqual(['Shop.ProductCatalogued.v1', 'Shop.StockReceived.v2', 'Shop.StockReceived.v1', 'Shop.StockReceived.v2']);
    const [mug] = await db!.query<{ version: string; type: string }>("SELECT version, type FROM protean_snapshots WHERE stream_name = 'shop::stock_item-MUG'");
    expect([Number(mug!.version), mug!.type]).toEqual([4, 'Shop.StockItem.v1']);
  });
});
