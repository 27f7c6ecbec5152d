/**
 * A transaction's BEGIN sent together with its first statement: one corked socket write and one
 * Sync, so one round trip instead of two. A unit of work of a few statements spent about 7 % of
 * its CPU on the socket write of a BEGIN alone (bench:hop profiles).
 *
 * A statement with parameters or a name goes out as Parse/Bind/Execute of BEGIN (unnamed, no
 * Describe) then the statement's own messages, through a subclass of the connection's own
 * node-postgres `Query` (two copies of `pg` are in the tree and their Query classes keep different
 * bookkeeping on the connection, so the subclass is made from the class of the client at hand).
 * A statement without either goes, as node-postgres sends it anyway, as a simple query, here
 * `BEGIN;` followed by its text.
 */
import type { PgConnection, PgQueryResult } from './pg-connection.js';

/** node-postgres's wire connection, as far as the subclass writes to it. */
interface PgWire {
  parse(message: { text: string; name?: string; types?: unknown[] }): void;
  bind(message: Record<string, never>): void;
  execute(message: Record<string, never>): void;
  /** pg ≥ 8.21: named statements whose Parse is on its way. */
  submittedNamedStatements?: Record<string, string>;
}

interface PgQuery {
  name?: string;
  text: string;
  types?: unknown[];
  prepare(wire: PgWire): void;
  hasBeenParsed(wire: PgWire): boolean;
}

type Callback = (error: Error | null, result: PgQueryResult | PgQueryResult[]) => void;

type PgQueryClass = new (config: { text: string; name?: string; values: unknown[]; callback: Callback }) => PgQuery;

const subclasses = new WeakMap<PgQueryClass, PgQueryClass>();

/** Runs BEGIN and then the statement in one round trip; resolves to the statement's result. */
export function queryWithBegin(connection: PgConnection, text: string, values: unknown[], name: string | undefined): Promise<PgQueryResult> {
  if (name === undefined && values.length === 0) {
    return connection.query(`BEGIN;\n${text}`).then((results) => afterBegin(results as unknown as PgQueryResult[]));
  }
  const Query = beginningQueryClass(connection);
  return new Promise((resolve, reject) => {
    const callback: Callback = (error, results) => (error ? reject(error) : resolve(afterBegin(results as PgQueryResult[])));
    (connection as unknown as { query(query: PgQuery): void }).query(new Query({ text, name, values, callback }));
  });
}

/**
 * node-postgres collects one result per command: BEGIN's, then the statement's (a text of several
 * statements has several, returned as an array as without BEGIN).
 */
function afterBegin(results: PgQueryResult[]): PgQueryResult {
  const own = results.slice(1);
  return (own.length === 1 ? own[0] : own) as PgQueryResult;
}

function beginningQueryClass(connection: PgConnection): PgQueryClass {
  const Query = (connection.constructor as unknown as { Query: PgQueryClass }).Query;
  let subclass = subclasses.get(Query);
  if (!subclass) {
    subclass = beginning(Query);
    subclasses.set(Query, subclass);
  }
  return subclass;
}

function beginning(Query: PgQueryClass): PgQueryClass {
  return class BeginningQuery extends Query {
    private parsedAhead = false;

    override prepare(wire: PgWire): void {
      // The client marks a named statement as prepared on the first ParseComplete of the query.
      // That must be this statement's: were it BEGIN's, a statement whose Parse then failed would
      // count as prepared and every later Bind of it would fail on this connection.
      if (this.name && !super.hasBeenParsed(wire)) {
        wire.parse({ text: this.text, name: this.name, types: this.types });
        if (wire.submittedNamedStatements) wire.submittedNamedStatements[this.name] = this.text;
        this.parsedAhead = true;
      }
      wire.parse({ text: 'BEGIN' });
      wire.bind({});
      wire.execute({});
      super.prepare(wire);
    }

    override hasBeenParsed(wire: PgWire): boolean {
      return this.parsedAhead || super.hasBeenParsed(wire);
    }
  };
}
