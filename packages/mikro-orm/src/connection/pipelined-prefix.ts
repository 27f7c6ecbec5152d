/**
 * Statements sent ahead of another in the same round trip: a transaction's BEGIN (and a batched
 * transaction's `SAVEPOINT s<N>`) go out with the first statement, one corked socket write and
 * one Sync, so one round trip instead of two or three. A unit of work of a few statements spent
 * about 7 % of its CPU on the socket write of a BEGIN alone (bench:hop profiles). The same way, a
 * transaction's COMMIT can follow its last statement (the outbox's append) as a suffix: when the
 * statement fails, PostgreSQL skips the COMMIT (everything after an error up to the Sync), and the
 * transaction is left aborted for the caller's ROLLBACK.
 *
 * A statement with parameters or a name goes out as Parse/Bind/Execute of each prefix statement
 * (unnamed, no Describe) then the statement's own messages, through a subclass of the
 * connection's own node-postgres `Query` (two copies of `pg` are in the tree and their Query
 * classes keep different bookkeeping on the connection, so the subclass is made from the class of
 * the client at hand). A statement without either goes, as node-postgres sends it anyway, as a
 * simple query, here `BEGIN;` (and the other prefix statements) followed by its text.
 */
import type { PgConnection, PgQueryResult } from './pg-connection.js';

/**
 * A statement sent ahead: a fixed text (`BEGIN`, `SAVEPOINT s1`), or one with parameters, already
 * converted to what the wire carries (text, or null), under `name` when it is prepared and
 * already parsed on the connection (only its Bind and Execute go out).
 */
export type PrefixStatement = string | { text: string; values: readonly (string | Buffer | null)[]; name?: string };

/** node-postgres's wire connection, as far as the subclass writes to it. */
interface PgWire {
  parse(message: { text: string; name?: string; types?: unknown[] }): void;
  bind(message: { statement?: string; values?: readonly (string | Buffer | null)[] }): void;
  execute(message: { portal?: string; rows?: number }): void;
  sync(): void;
  /** pg ≥ 8.21: named statements whose Parse is on its way. */
  submittedNamedStatements?: Record<string, string>;
}

interface PgQuery {
  name?: string;
  text: string;
  types?: unknown[];
  portal?: string;
  prepare(wire: PgWire): void;
  hasBeenParsed(wire: PgWire): boolean;
}

type Callback = (error: Error | null, result: PgQueryResult | PgQueryResult[]) => void;

interface PrefixedQueryConfig {
  text: string;
  name?: string;
  values: unknown[];
  callback: Callback;
  prefix: readonly PrefixStatement[];
  suffix: readonly string[];
}

type PgQueryClass = new (
  text: string,
  values: unknown[],
  callback: Callback,
) => PgQuery & {
  _getRows(wire: PgWire, rows: number | undefined): void;
};
type PrefixedQueryClass = new (config: PrefixedQueryConfig) => PgQuery;

const subclasses = new WeakMap<PgQueryClass, PrefixedQueryClass>();

/**
 * Runs the `prefix` statements (fixed texts such as `['BEGIN', 'SAVEPOINT s1']`, or bound statements),
 * the statement, then the `suffix` statements (`['COMMIT']`) in one round trip; resolves to the
 * statement's result. A failing statement rejects with its error, whichever of them failed.
 */
export function queryWithPrefix(
  connection: PgConnection,
  prefix: readonly PrefixStatement[],
  text: string,
  values: unknown[],
  name: string | undefined,
  suffix: readonly string[] = [],
): Promise<PgQueryResult> {
  if (name === undefined && values.length === 0 && prefix.every((statement) => typeof statement === 'string')) {
    return connection
      .query([...prefix, text, ...suffix].join(';\n'))
      .then((results) => ownResult(results as unknown as PgQueryResult[], prefix.length, suffix.length));
  }
  const Query = prefixedQueryClass(connection);
  return new Promise((resolve, reject) => {
    const callback: Callback = (error, results) => (error ? reject(error) : resolve(ownResult(results as PgQueryResult[], prefix.length, suffix.length)));
    (connection as unknown as { query(query: PgQuery): void }).query(new Query({ text, name, values, callback, prefix, suffix }));
  });
}

/**
 * node-postgres collects one result per command: the prefix statements' first, then the
 * statement's, then the suffix's (a text of several statements has several, returned as an array
 * as without prefix).
 */
function ownResult(results: PgQueryResult[] | PgQueryResult, prefixLength: number, suffixLength: number): PgQueryResult {
  // A statement sent alone (a named one, through this class to skip the config copy) has one result.
  if (!Array.isArray(results)) return results;
  const own = results.slice(prefixLength, results.length - suffixLength);
  return (own.length === 1 ? own[0] : own) as PgQueryResult;
}

function prefixedQueryClass(connection: PgConnection): PrefixedQueryClass {
  const Query = (connection.constructor as unknown as { Query: PgQueryClass }).Query;
  let subclass = subclasses.get(Query);
  if (!subclass) {
    subclass = prefixed(Query);
    subclasses.set(Query, subclass);
  }
  return subclass;
}

function prefixed(Query: PgQueryClass): PrefixedQueryClass {
  return class PrefixedQuery extends Query {
    private parsedAhead = false;
    private readonly prefix: readonly PrefixStatement[];
    private readonly suffix: readonly string[];

    constructor(config: PrefixedQueryConfig) {
      // Text, values and callback as arguments: node-postgres copies a config object's property
      // descriptors one by one (`cloneQueryConfig`), 7 µs a statement in bench:hop's profile.
      super(config.text, config.values, config.callback);
      this.name = config.name;
      this.prefix = config.prefix;
      this.suffix = config.suffix;
    }

    override prepare(wire: PgWire): void {
      // The client marks a named statement as prepared on the first ParseComplete of the query.
      // That must be this statement's: were it a prefix statement's, a statement whose Parse then
      // failed would count as prepared and every later Bind of it would fail on this connection.
      if (this.name && !super.hasBeenParsed(wire)) {
        wire.parse({ text: this.text, name: this.name, types: this.types });
        if (wire.submittedNamedStatements) wire.submittedNamedStatements[this.name] = this.text;
        this.parsedAhead = true;
      }
      for (const statement of this.prefix) {
        if (typeof statement === 'string') {
          wire.parse({ text: statement });
          wire.bind({});
        } else {
          if (!statement.name) wire.parse({ text: statement.text });
          wire.bind({ statement: statement.name, values: statement.values });
        }
        wire.execute({});
      }
      super.prepare(wire);
    }

    override hasBeenParsed(wire: PgWire): boolean {
      return this.parsedAhead || super.hasBeenParsed(wire);
    }

    // node-postgres ends the statement's messages here with Execute and Sync: the suffix
    // statements go between them, so they run in the same pipeline only if the statement succeeded.
    override _getRows(wire: PgWire, rows: number | undefined): void {
      if (rows || this.suffix.length === 0) return super._getRows(wire, rows);
      wire.execute({ portal: this.portal, rows });
      for (const statement of this.suffix) {
        wire.parse({ text: statement });
        wire.bind({});
        wire.execute({});
      }
      wire.sync();
    }
  };
}
