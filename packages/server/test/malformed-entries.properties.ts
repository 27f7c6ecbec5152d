/**
 * A hostile producer writes straight into a subscription's Redis stream: entries without an
 * envelope, broken JSON, envelopes nesting a hundred thousand levels, missing or wrong checksums,
 * odd metadata, megabyte values, any unicode, prototype-named keys, raw bytes, forged markers.
 * Each batch goes through a running Engine (the real subscription machinery, its inbox on the
 * memory database or PostgreSQL), and every entry must end: handled, or dead-lettered with a
 * reason; the group's pending list empties, nothing hangs, nothing escapes as an exception.
 * Run by malformed-entries.property.int.spec.ts (a fixed seed, the fast tier) and
 * malformed-entries.property.load.spec.ts (a random seed, more runs; FC_RUNS, FC_SEED).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { envelopeChecksum, positionOf, positionPassedEnvelope, stripEnvelope, type DeadLetter, type Domain, type MessageEnvelope } from '@protean-ts/core';
import { POSTGRES, propertyRun, REDIS, servicesUp, type PropertyRun, type PropertyTier } from '@protean-ts/conformance';
import type { RedisBroker } from '@protean-ts/redis';
import { Engine } from '../src/engine/engine.js';
import { makeCounterDomain } from './support/counter-fixture.js';
import { captureLogs } from './support/log-capture.js';
import { createTempDatabase, REDIS_URI, uniquePrefix, type TempDatabase } from './support/real-services.js';

const redisUp = await servicesUp(REDIS);
const postgresUp = redisUp && (await servicesUp(POSTGRES));

/** Longest a batch may take to end before it counts as a hang. */
const BATCH_DEADLINE_MS = 30_000;
/** Per run: the batches of a run end in well under a second; only a hang comes near. */
const RUN_TIMEOUT_MS = 4_000;

/** What must become of an entry: handled (its handler ran), dead-lettered with a reason matching, or either. */
type Expected = { kind: 'handled' } | { kind: 'dead-lettered'; reason: RegExp } | { kind: 'ends' };

interface Entry {
  label: string;
  fields: (string | Buffer)[];
  expected: Expected;
  /** The `key` the Tally handler records when it runs (handled entries). */
  key?: string;
  n?: number;
}

type Counter = ReturnType<typeof makeCounterDomain>;

/** Serial numbers make keys unique across runs, so the entries of one batch never share a key or an id. */
let serial = 0;

const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'then', 'toJSON'] as const;
const anyJson = fc.jsonValue({ maxDepth: 3 });
const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.constantFrom('', ' ', '\u0000', '\ud800', 'null', '{}'),
);
// Text a string field accepts: fields refuse NUL and unpaired surrogates (they cannot be stored).
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const storableText = anyText.filter((text) => !text.includes('\u0000') && !LONE_SURROGATE.test(text));

const envelopeField = (envelope: unknown): (string | Buffer)[] => ['envelope', JSON.stringify(envelope), 'type', 'Malformed.v1'];

function signed(envelope: MessageEnvelope): MessageEnvelope {
  envelope.metadata.envelope.checksum = envelopeChecksum(envelope);
  return envelope;
}

/** Each arbitrary builds one entry from the counter domain (a fresh key per entry). */
function entryArbitrary(counter: Counter): fc.Arbitrary<Entry> {
  const next = () => (serial += 1);
  const valid = (label: string) => {
    const n = next();
    const key = `k${n}`;
    return { n, key, envelope: counter.ticked(key, n, 1), label };
  };
  const handled = (label: string, envelope: MessageEnvelope, key: string, n: number): Entry => ({
    label,
    fields: envelopeField(envelope),
    expected: { kind: 'handled' },
    key,
    n,
  });
  const deadLettered = (label: string, fields: (string | Buffer)[], reason: RegExp): Entry => ({ label, fields, expected: { kind: 'dead-lettered', reason } });
  const ends = (label: string, fields: (string | Buffer)[]): Entry => ({ label, fields, expected: { kind: 'ends' } });

  return fc.oneof(
    // Well-formed messages, also with any unicode or a few hundred kilobytes in a value.
    fc.constant(null).map(() => {
      const { n, key, envelope, label } = valid('valid');
      return handled(label, envelope, key, n);
    }),
    storableText.map((text) => {
      const n = next();
      const key = `u${n}:${text}`;
      // The position keeps an ordinary key; the odd text travels in the data.
      const envelope = counter.ticked(key, n, 1);
      envelope.metadata.envelope.position = { key: `${counter.stream}-u${n}`, sequence: 1 };
      return handled('unicode value', envelope, key, n);
    }),
    fc.tuple(fc.constantFrom('key', 'blob'), fc.integer({ min: 1_000, max: 400_000 })).map(([name, size]) => {
      const { envelope } = valid('');
      (envelope.data as Record<string, unknown>)[name] = 'x'.repeat(size);
      return ends(`huge ${name}, signed`, envelopeField(signed(envelope)));
    }),
    fc.constant(null).map(() => {
      const { n, key, envelope } = valid('');
      delete envelope.metadata.envelope.position;
      return handled('valid without a position', envelope, key, n);
    }),
    // Checksums.
    fc.constant(null).map(() => deadLettered('checksum removed', envelopeField(stripEnvelope(valid('').envelope)), /MissingChecksumError/)),
    fc.integer().map((n) => {
      const { envelope } = valid('');
      envelope.data.n = n === envelope.data.n ? n + 1 : n;
      return deadLettered('wrong checksum', envelopeField(envelope), /ChecksumMismatchError/);
    }),
    fc.oneof(anyJson, fc.string()).map((checksum) => {
      const { envelope } = valid('');
      (envelope.metadata.envelope as { checksum: unknown }).checksum = checksum;
      return ends('odd checksum', envelopeField(envelope));
    }),
    // Not JSON, not an envelope, no envelope at all, raw bytes.
    fc
      .string()
      .filter((text) => !parses(text))
      .map((text) => deadLettered('bad JSON', ['envelope', text], /is not JSON/)),
    fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => ends('raw bytes', ['envelope', Buffer.from(bytes), 'type', Buffer.from(bytes)])),
    anyJson.map((value) => deadLettered('JSON that is no envelope', ['envelope', JSON.stringify(value)], /cannot be decoded/)),
    fc
      .array(
        fc.tuple(
          fc.string().filter((name) => name !== 'envelope'),
          anyText,
        ),
        { minLength: 1, maxLength: 5 },
      )
      .map((pairs) => deadLettered('no envelope field', pairs.flat(), /no "envelope" field/)),
    // Nesting: deeper than any message (dead-lettered at read), or just within (handled or refused by the handler side).
    fc.integer({ min: 201, max: 100_000 }).map((levels) => {
      const text = JSON.stringify(valid('').envelope).replace('"data":{', `"data":{"deep":${'['.repeat(levels)}${']'.repeat(levels)},`);
      return deadLettered('deep nesting', ['envelope', text], /nests deeper than 200 levels/);
    }),
    fc.integer({ min: 150, max: 199 }).map((levels) => {
      const { envelope } = valid('');
      (envelope.data as Record<string, unknown>).deep = JSON.parse(`${'['.repeat(levels)}${']'.repeat(levels)}`);
      return ends('nesting within the limit', envelopeField(signed(envelope)));
    }),
    // Missing or odd envelope parts, signed again (a producer that signs garbage) or not.
    fc
      .record({
        path: fc.constantFrom(
          'data',
          'metadata',
          'metadata.headers',
          'metadata.headers.id',
          'metadata.headers.type',
          'metadata.domain',
          'metadata.domain.kind',
          'metadata.envelope',
          'metadata.envelope.position',
          'metadata.envelope.position.key',
          'metadata.envelope.position.sequence',
          'metadata.extensions',
          'metadata.headers.time',
          'data.n',
          'data.key',
        ),
        value: fc.option(fc.oneof(anyJson, anyText), { nil: undefined }),
        resign: fc.boolean(),
      })
      .map(({ path, value, resign }) => {
        const envelope = valid('').envelope as unknown as Record<string, unknown>;
        const steps = path.split('.');
        let target = envelope;
        for (const step of steps.slice(0, -1)) target = target[step] as Record<string, unknown>;
        if (value === undefined) delete target[steps[steps.length - 1]!];
        else target[steps[steps.length - 1]!] = value;
        if (resign) tryToSign(envelope);
        return ends(`${value === undefined ? 'missing' : 'odd'} ${path}${resign ? ', signed' : ''}`, envelopeField(envelope));
      }),
    // Prototype-named keys, as own keys the way JSON.parse makes them.
    fc
      .record({
        where: fc.constantFrom('', '"data":{', '"metadata":{', '"headers":{'),
        name: fc.constantFrom(...PROTOTYPE_KEYS),
        value: anyJson,
        resign: fc.boolean(),
      })
      .map(({ where, name, value, resign }) => {
        const text = JSON.stringify(valid('').envelope);
        // A function replacement: a generated value may hold `$\`` or `$'`, which a string replacement would expand.
        const injected =
          where === ''
            ? `{${JSON.stringify(name)}:${JSON.stringify(value)},${text.slice(1)}`
            : text.replace(where, () => `${where}${JSON.stringify(name)}:${JSON.stringify(value)},`);
        const envelope = JSON.parse(injected) as Record<string, unknown>;
        if (resign) tryToSign(envelope);
        return ends(`prototype key ${name}`, ['envelope', resign ? JSON.stringify(envelope) : injected]);
      }),
    // A type no handler handles (skipped), and a forged, unsigned marker (refused).
    fc.constant(null).map(() => {
      const { envelope } = valid('');
      envelope.metadata.headers.type = 'Elsewhere.Unknown.v1';
      return ends('unknown type, signed', envelopeField(signed(envelope)));
    }),
    fc.constant(null).map(() => {
      const { envelope } = valid('');
      const marker = stripEnvelope(
        positionPassedEnvelope({
          position: positionOf(envelope)!,
          messageId: envelope.metadata.headers.id,
          messageType: envelope.metadata.headers.type,
          streamCategory: counter.stream,
          reason: 'forged',
        }),
      );
      return deadLettered('unsigned position marker', envelopeField(marker), /MissingChecksumError/);
    }),
    // Signed, but with what no inbox can store: PostgreSQL text holds no NUL, its indexes no huge keys.
    fc.tuple(fc.constantFrom('\u0000', 'x'.repeat(600), 'ü'.repeat(3_000)), fc.boolean()).map(([odd, inKey]) => {
      const { envelope } = valid('');
      if (inKey) envelope.metadata.envelope.position = { key: `${counter.stream}-${odd}`, sequence: 1 };
      else envelope.metadata.headers.id = `${envelope.metadata.headers.id}${odd}`;
      return deadLettered(
        `unstorable ${inKey ? 'position key' : 'message id'}`,
        envelopeField(signed(envelope)),
        inKey ? /metadata\.envelope\.position/ : /metadata\.headers\.id/,
      );
    }),
    fc.constantFrom<unknown>('\u0000', 'r'.repeat(100_000), { toString: 'not a function' }, ['x'], null).map((odd) => {
      const { envelope } = valid('');
      const marker = positionPassedEnvelope({
        position: positionOf(envelope)!,
        messageId: `m\u0000${envelope.metadata.headers.id}`,
        messageType: envelope.metadata.headers.type,
        streamCategory: counter.stream,
        reason: 'placeholder',
      });
      // Odd values a producer that signs garbage could put where text belongs: String() of the object throws.
      Object.assign(marker.data, { reason: odd, messageId: odd });
      return ends('signed marker with unstorable text', envelopeField(signed(marker)));
    }),
    // Odd layouts: the envelope field twice (the last one counts), empty names and values.
    fc.constant(null).map(() => {
      const { n, key, envelope } = valid('');
      return { ...handled('envelope field twice', envelope, key, n), fields: ['envelope', '{}', '', '', ...envelopeField(envelope)] };
    }),
  );
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function tryToSign(envelope: Record<string, unknown>): void {
  try {
    signed(envelope as unknown as MessageEnvelope);
  } catch {
    // Too broken to hash (no metadata.envelope): it goes out unsigned.
  }
}

function describeVariant(
  label: string,
  enabled: boolean,
  database: () => Promise<{ settings: Record<string, unknown>; drop(): Promise<void> }>,
  run: PropertyRun,
) {
  const { numRuns } = run;
  describe.skipIf(!enabled)(`malformed stream entries through a running subscription (Redis, ${label})`, () => {
    const redis = new Redis(REDIS_URI, { lazyConnect: true });
    const prefix = uniquePrefix('malformed');
    let counter: Counter;
    let engine: Engine;
    let drop: () => Promise<void> = async () => undefined;
    let logs: ReturnType<typeof captureLogs>;

    beforeAll(async () => {
      logs = captureLogs();
      const db = await database();
      drop = db.drop;
      // One capital only: the fixture's stream name is the lower-cased domain name.
      counter = makeCounterDomain(`Hostile${label.replace(/\W/g, '').toLowerCase()}`, {
        event_processing: 'async',
        databases: { default: db.settings },
        brokers: { default: { provider: 'redis', uri: REDIS_URI, stream_prefix: prefix, claim_idle_ms: 500 } },
        server: {
          health: { port: 0 },
          tick_interval: 0.05,
          stream_subscription: { blocking_timeout_ms: 50, max_retries: 1, retry_delay_seconds: 0.01, gap_timeout_seconds: 0.3, concurrency: 16 },
        },
        inbox: { enabled: true },
      });
      await setupTables(counter.domain);
      engine = new Engine(counter.domain, { health: false, reclaimIntervalMs: 250 });
      await engine.start();
    });
    afterAll(async () => {
      await engine?.stop();
      logs?.restore();
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
      await drop();
    });

    const broker = () => counter.domain.brokers.get('default') as RedisBroker;
    const tally = () => engine.subscriptionStatuses().find((s) => s.name === 'Tally')!;

    async function settled(): Promise<void> {
      const deadline = Date.now() + BATCH_DEADLINE_MS;
      for (;;) {
        const status = await broker().groupStatus(counter.stream, 'Tally');
        if (!status.exists) throw new Error(`the subscription reads another stream than ${counter.stream}`);
        if (status.pending === 0 && status.lag === 0 && tally().inFlight === 0) return;
        if (Date.now() > deadline) throw new Error(`a batch hung: ${JSON.stringify({ ...status, inFlight: tally().inFlight })}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }

    async function deadLetters(): Promise<Map<string, DeadLetter>> {
      return new Map((await broker().listDeadLetters(counter.stream, { count: 100_000 })).map((letter) => [letter.originalId, letter]));
    }

    it(
      `every entry ends handled or dead-lettered with a reason (seed ${run.seed})`,
      async () => {
        const outcomes = { entries: 0, handled: 0, deadLettered: 0 };
        await fc.assert(
          fc.asyncProperty(fc.array(entryArbitrary(counter), { minLength: 1, maxLength: 12 }), async (entries) => {
            const pipeline = redis.pipeline();
            for (const entry of entries) pipeline.xadd(broker().key(counter.stream), '*', ...entry.fields);
            const ids = ((await pipeline.exec()) ?? []).map(([error, id]) => {
              if (error) throw error;
              return id as string;
            });
            await settled();
            const letters = await deadLetters();
            for (const [i, entry] of entries.entries()) {
              const letter = letters.get(ids[i]!);
              const ran = entry.key !== undefined && (counter.probe.seen.get(entry.key) ?? []).includes(entry.n!);
              const where = `${entry.label} (entry ${ids[i]})`;
              outcomes.entries += 1;
              if (ran) outcomes.handled += 1;
              if (letter) outcomes.deadLettered += 1;
              if (letter) expect(letter.error, `${where}: a dead letter without a reason`).not.toBe('');
              if (letter) expect(letter.envelope !== null || letter.rawFields !== undefined, `${where}: a dead letter without the message`).toBe(true);
              if (entry.expected.kind === 'handled') {
                expect(ran, `${where}: not handled${letter ? `, dead-lettered: ${letter.error.slice(0, 300)}` : ''}`).toBe(true);
                expect(letter, `${where}: handled and dead-lettered`).toBeUndefined();
              }
              if (entry.expected.kind === 'dead-lettered') {
                expect(letter, `${where}: not dead-lettered`).toBeDefined();
                expect(letter!.error, where).toMatch(entry.expected.reason);
              }
            }
          }),
          { ...run, endOnFailure: true },
        );
        // Hundreds of entries went through, both ways (the suite is not vacuous).
        expect(outcomes.entries).toBeGreaterThan(numRuns * 3);
        expect(outcomes.handled).toBeGreaterThan(numRuns / 2);
        expect(outcomes.deadLettered).toBeGreaterThan(numRuns);
        // Nothing escaped the subscription: no message failed to settle, the loop never broke.
        const escaped = logs.records.filter((r) => r.msg === 'could not settle a message; trying again' || r.msg === 'subscription loop ended unexpectedly');
        expect(escaped.map((r) => JSON.stringify(r).slice(0, 500))).toEqual([]);
        expect(tally().state).toBe('running');
        expect(tally().dropped).toBe(0);
      },
      Math.max(240_000, numRuns * RUN_TIMEOUT_MS),
    );
  });
}

async function setupTables(domain: Domain): Promise<void> {
  await domain.init();
  for (const provider of domain.providers.values()) await provider.setupSchema(domain.runtime.infrastructure.aggregateSchemas(), { outbox: true });
}

export function describeMalformedEntryProperties(tier: PropertyTier): void {
  describeVariant(
    'memory database',
    redisUp,
    async () => ({ settings: { provider: 'memory' }, drop: async () => undefined }),
    propertyRun(tier, { seed: 20_261_124, fastRuns: 60, loadRuns: 300 }),
  );
  describeVariant(
    'PostgreSQL',
    postgresUp,
    async () => {
      const db: TempDatabase = await createTempDatabase();
      return { settings: { provider: 'postgresql', database_uri: db.uri, pool_size: 4 }, drop: db.drop };
    },
    propertyRun(tier, { seed: 20_261_124, fastRuns: 25, loadRuns: 125 }),
  );
}
