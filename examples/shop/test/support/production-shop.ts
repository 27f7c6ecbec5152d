/**
 * The shop as it runs in production (PostgreSQL, and Redis, RabbitMQ or NATS through the
 * PROTEAN_ENV overlay of shop-broker.ts), on a database and a broker namespace of its own: tables created with the real `protean-ts db setup`,
 * and the domain initialised in this process too, to seed stock and send commands.
 */
import { domain } from '../../src/domain.js';
import { createShopBroker, type ShopBroker, type ShopBrokerKind } from './shop-broker.js';
import { shopCli } from './shop-server.js';
import { createTempDatabase, type TempDatabase } from './temp-database.js';

export interface ProductionShop {
  db: TempDatabase;
  broker: ShopBroker;
  /** What every `protean-ts` command of this shop runs with. */
  env: Record<string, string>;
  /** Closes the domain and removes the database and the broker's streams. */
  dispose(): Promise<void>;
}

/** `kind` overrides SHOP_BROKER for a test that needs one broker in particular. */
export async function createProductionShop(kind?: ShopBrokerKind): Promise<ProductionShop> {
  const db = await createTempDatabase();
  const broker = await createShopBroker(kind);
  // HEALTH_PORT=0: a free port, so runs in parallel never collide on 8080.
  const env = { ...broker.env, DATABASE_URL: db.uri, HEALTH_PORT: '0' };
  const setup = await shopCli(['db', 'setup'], env);
  if (setup.code !== 0) throw new Error(`protean-ts db setup failed (exit ${setup.code}):\n${setup.stdout}${setup.stderr}`);

  // domain.init() reads PROTEAN_ENV and the ${VAR}s of domain.toml from process.env.
  const previous = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]));
  Object.assign(process.env, env);
  await domain.close();
  await domain.init();

  return {
    db,
    broker,
    env,
    async dispose() {
      await domain.close();
      for (const [key, value] of Object.entries(previous)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
      await Promise.allSettled([db.drop(), broker.drop()]);
    },
  };
}
