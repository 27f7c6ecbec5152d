/**
 * Where the limits every worker shares live: two small tables in the `[inbox] database`
 * (PostgreSQL), created on first use.
 *
 * - `protean_flow_rates`: one row per subscription holding the GCRA's theoretical arrival time
 *   (ms, the database's clock). Taking a slot is one UPDATE that moves it on by the emission
 *   interval and returns how long the caller must wait for its slot: reservations, not polling.
 * - `protean_flow_permits`: `max_concurrency` slot rows per subscription. Taking a permit is one
 *   UPDATE of a free or expired slot chosen with `FOR UPDATE SKIP LOCKED`; a holder renews its
 *   permits while it holds them, so those of a worker that died expire after the lease.
 *
 * Times are the database's (`clock_timestamp()`), so the workers' clocks never need to agree.
 */
import type { SqlDatabase } from '@protean-ts/mikro-orm';

export const FLOW_RATES_TABLE = 'protean_flow_rates';
export const FLOW_PERMITS_TABLE = 'protean_flow_permits';
export const FLOW_CIRCUITS_TABLE = 'protean_flow_circuits';

/** A worker's circuit of a subscription as last recorded, for `protean-ts status` and the Observatory. */
export interface RecordedCircuit {
  /** `<domain>:<subscription>` */
  scope: string;
  worker: string;
  state: 'closed' | 'open' | 'half-open';
  opened: number;
  lastError: string | null;
  changedAt: string;
}

/** A PostgreSQL error code: the type or table was created by another worker at the same moment. */
const CONCURRENT_CREATE = ['23505', '42P07'];

export class PostgresFlowLimits {
  private ready: Promise<void> | null = null;
  private readonly rates: string;
  private readonly permits: string;
  private readonly circuits: string;

  constructor(private readonly db: SqlDatabase) {
    this.rates = db.qualify(FLOW_RATES_TABLE);
    this.permits = db.qualify(FLOW_PERMITS_TABLE);
    this.circuits = db.qualify(FLOW_CIRCUITS_TABLE);
  }

  /** Records a worker's circuit state (each change), so processes other than the worker can show it. */
  async recordCircuit(scope: string, worker: string, state: string, opened: number, lastError: string | null): Promise<void> {
    await this.ensureTables();
    await this.db.execute(
      `insert into ${this.circuits} (scope, worker, state, opened, last_error, changed_at) values (?, ?, ?, ?, ?, clock_timestamp())
       on conflict (scope, worker) do update set state = excluded.state, opened = excluded.opened, last_error = excluded.last_error, changed_at = excluded.changed_at`,
      [scope, worker, state, opened, lastError],
    );
  }

  /** Circuits recorded for the scopes starting with `prefix` that are not closed; none when the table does not exist yet. */
  async openCircuits(prefix: string): Promise<RecordedCircuit[]> {
    const exists = await this.db.execute<{ found: string | null }>('select to_regclass(?) as found', [this.circuits]);
    if (!exists.rows[0]?.found) return [];
    const result = await this.db.execute<{
      scope: string;
      worker: string;
      state: RecordedCircuit['state'];
      opened: number;
      last_error: string | null;
      changed_at: Date;
    }>(
      `select scope, worker, state, opened, last_error, changed_at from ${this.circuits} where starts_with(scope, ?) and state <> 'closed' order by scope, worker`,
      [prefix],
    );
    return result.rows.map((row) => ({
      scope: row.scope,
      worker: row.worker,
      state: row.state,
      opened: Number(row.opened),
      lastError: row.last_error,
      changedAt: new Date(row.changed_at).toISOString(),
    }));
  }

  /**
   * Reserves the next start slot of `scope` at `perSecond` with `burst` back-to-back starts
   * allowed; resolves to the milliseconds until that slot (0: now).
   */
  async reserveSlot(scope: string, perSecond: number, burst: number): Promise<number> {
    await this.ensureTables();
    const interval = 1000 / perSecond;
    const tolerance = (burst - 1) * interval;
    const result = await this.db.execute<{ wait_ms: number | string }>(
      `insert into ${this.rates} as r (scope, tat_ms) values (?, extract(epoch from clock_timestamp()) * 1000 + ?::float8)
       on conflict (scope) do update set tat_ms = greatest(r.tat_ms, extract(epoch from clock_timestamp()) * 1000) + ?::float8
       returning r.tat_ms - ?::float8 - extract(epoch from clock_timestamp()) * 1000 as wait_ms`,
      [scope, interval, interval, interval + tolerance],
    );
    return Math.max(0, Number(result.rows[0]?.wait_ms ?? 0));
  }

  /** Takes a free permit of `scope` for `holder`; the slot number, or null when all `cap` are held. */
  async takePermit(scope: string, cap: number, holder: string, leaseMs: number): Promise<number | null> {
    await this.ensureTables();
    await this.db.execute(`insert into ${this.permits} (scope, slot) select ?, s from generate_series(0, ?::int - 1) s on conflict do nothing`, [scope, cap]);
    const result = await this.db.execute<{ slot: number }>(
      `update ${this.permits} p set holder = ?, expires_at = clock_timestamp() + ?::float8 * interval '1 millisecond'
       where (p.scope, p.slot) = (
         select scope, slot from ${this.permits}
         where scope = ? and slot < ? and (holder is null or expires_at < clock_timestamp())
         order by slot limit 1 for update skip locked)
       returning p.slot`,
      [holder, leaseMs, scope, cap],
    );
    return result.rows[0]?.slot ?? null;
  }

  async releasePermit(scope: string, slot: number, holder: string): Promise<void> {
    await this.db.execute(`update ${this.permits} set holder = null, expires_at = null where scope = ? and slot = ? and holder = ?`, [scope, slot, holder]);
  }

  /** Moves the expiry of the permits `holders` hold on; returns how many are still theirs. */
  async renewPermits(scope: string, holders: readonly string[], leaseMs: number): Promise<number> {
    if (holders.length === 0) return 0;
    const result = await this.db.execute(
      `update ${this.permits} set expires_at = clock_timestamp() + ?::float8 * interval '1 millisecond' where scope = ? and holder = any(?::text[])`,
      [leaseMs, scope, holders],
    );
    return result.rowCount ?? 0;
  }

  /** Permits of `scope` held now (not expired), by anyone. */
  async heldPermits(scope: string): Promise<number> {
    await this.ensureTables();
    const result = await this.db.execute<{ held: string }>(
      `select count(*) as held from ${this.permits} where scope = ? and holder is not null and expires_at > clock_timestamp()`,
      [scope],
    );
    return Number(result.rows[0]?.held ?? 0);
  }

  private ensureTables(): Promise<void> {
    this.ready ??= this.createTables().catch((error: unknown) => {
      this.ready = null;
      throw error;
    });
    return this.ready;
  }

  private async createTables(): Promise<void> {
    const statements = [
      `create table if not exists ${this.rates} (scope text primary key, tat_ms double precision not null)`,
      `create table if not exists ${this.permits} (scope text not null, slot integer not null, holder text, expires_at timestamptz, primary key (scope, slot))`,
      `create table if not exists ${this.circuits} (scope text not null, worker text not null, state text not null, opened integer not null, last_error text, changed_at timestamptz not null, primary key (scope, worker))`,
    ];
    for (const sql of statements) {
      try {
        await this.db.execute(sql);
      } catch (error) {
        // Another worker created it between our check and our create: it exists now.
        if (!CONCURRENT_CREATE.includes((error as { code?: string }).code ?? '')) throw error;
      }
    }
  }
}
