/**
 * The baseline: the same two rows per commit written with node-postgres directly (BEGIN, INSERT
 * parent, INSERT child, COMMIT on a pooled client), into tables copied from the framework's own
 * (`CREATE TABLE … (LIKE … INCLUDING ALL)` plus the same foreign key), with the same pool size.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';

export class RawBaseline {
  private readonly pool: pg.Pool;

  constructor(
    uri: string,
    poolSize: number,
    private readonly parent: string,
    private readonly child: string,
    private readonly parentKey: string,
  ) {
    this.pool = new pg.Pool({ connectionString: uri, max: poolSize });
    // An idle client killed under the pool (the database is dropped at the end) must not crash the run.
    this.pool.on('error', () => undefined);
  }

  /** Copies the framework's tables (columns, defaults, indexes, constraints) under `raw_` names. */
  async createTables(parentSource: string, childSource: string): Promise<void> {
    await this.pool.query(`CREATE TABLE ${this.parent} (LIKE ${parentSource} INCLUDING ALL)`);
    await this.pool.query(`CREATE TABLE ${this.child} (LIKE ${childSource} INCLUDING ALL)`);
    await this.pool.query(`ALTER TABLE ${this.child} ADD FOREIGN KEY ("${this.parentKey}") REFERENCES ${this.parent} (id) ON DELETE CASCADE`);
  }

  /** One commit: an order and its line, in one transaction. */
  async commit(): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const id = randomUUID();
      await client.query(`INSERT INTO ${this.parent} (id, customer, total, _version) VALUES ($1, $2, $3, 0)`, [id, 'Ann', 12.5]);
      await client.query(`INSERT INTO ${this.child} (id, sku, quantity, "${this.parentKey}", _position) VALUES ($1, $2, $3, $4, 0)`, [
        randomUUID(),
        'SKU-1',
        2,
        id,
      ]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async rowCount(): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.parent}`);
    return rows[0]!.n;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
