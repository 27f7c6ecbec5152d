/**
 * Counts what a round sends: PostgreSQL statements (every `query` of node-postgres's Client,
 * both copies in the tree: the one MikroORM resolves and the root one the raw side uses) by
 * their first words, and Redis commands by name. Rounds run one at a time, so the difference
 * of two snapshots is that round's traffic.
 */
import { createRequire } from 'node:module';
import { Redis } from 'ioredis';
import pg from 'pg';

type Counts = Map<string, number>;

const statements: Counts = new Map();
const commands: Counts = new Map();

function bump(counts: Counts, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

const shapes = new Map<string, string>();

/** `INSERT INTO "public"."counter" …` → `INSERT … counter`; cached, so counting costs a lookup per statement. */
function statementShape(text: string): string {
  let shape = shapes.get(text);
  if (shape === undefined) {
    shape = shapeOf(text);
    // Texts built per call (a batch's placeholders) must not grow the cache without bound.
    if (shapes.size < 10_000) shapes.set(text, shape);
  }
  return shape;
}

function shapeOf(text: string): string {
  const compact = text.slice(0, 400).replace(/\s+/g, ' ').trim();
  const table = /(?:INTO|UPDATE|FROM)\s+(?:"?\w+"?\.)?"?(\w+)"?/i.exec(compact)?.[1] ?? '';
  const verb = compact.split(' ')[0]!.toUpperCase();
  if (verb === 'WITH') {
    // A CTE is named by what it writes: `WITH (INSERT protean_outbox_positions, INSERT protean_outbox)`.
    const writes = [...text.matchAll(/(INSERT INTO|UPDATE|DELETE FROM)\s+(?:"?\w+"?\.)?"?(\w+)"?/gi)].map(
      (m) => `${m[1]!.split(' ')[0]!.toUpperCase()} ${m[2]}`,
    );
    return `WITH (${[...new Set(writes)].join(', ') || 'read only'})`;
  }
  return table ? `${verb} … ${table}` : verb;
}

function wrapClient(proto: { query: (...args: unknown[]) => unknown }): void {
  const original = proto.query;
  if ((original as { counted?: boolean }).counted) return;
  const counted = function (this: unknown, ...args: unknown[]) {
    const first = args[0];
    const text = typeof first === 'string' ? first : (first as { text?: string } | null)?.text;
    if (typeof text === 'string') bump(statements, statementShape(text));
    return original.apply(this, args);
  };
  (counted as { counted?: boolean }).counted = true;
  proto.query = counted;
}

export function installCounters(): void {
  wrapClient(pg.Client.prototype as never);
  // MikroORM's knex resolves its own copy of pg; count that one too.
  const mikroRequire = createRequire(createRequire(import.meta.url).resolve('@mikro-orm/postgresql'));
  const copy = mikroRequire('pg') as typeof pg;
  if (copy.Client.prototype !== pg.Client.prototype) wrapClient(copy.Client.prototype as never);
  const send = Redis.prototype.sendCommand;
  Redis.prototype.sendCommand = function (this: Redis, command, stream) {
    bump(commands, String((command as { name: string }).name).toUpperCase());
    return send.call(this, command, stream);
  } as typeof send;
}

export interface Traffic {
  statements: Counts;
  commands: Counts;
}

export function snapshot(): Traffic {
  return { statements: new Map(statements), commands: new Map(commands) };
}

export function since(before: Traffic): Traffic {
  const diff = (now: Counts, then: Counts): Counts =>
    new Map([...now].map(([key, n]) => [key, n - (then.get(key) ?? 0)] as [string, number]).filter(([, n]) => n > 0));
  return { statements: diff(statements, before.statements), commands: diff(commands, before.commands) };
}

export function total(counts: Counts): number {
  let sum = 0;
  for (const n of counts.values()) sum += n;
  return sum;
}

/** `BEGIN 1.00, UPDATE … hop_counter 1.00, …` per message, largest first. */
export function perMessage(counts: Counts, messages: number): string {
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([key, n]) => `${key} ${(n / messages).toFixed(2)}`)
    .join(', ');
}
