/**
 * How the PostgreSQL outbox wakes relays after a commit (src/outbox/append-signal.ts): a process
 * that relays its outbox wakes its relays directly and notifies no one; a process that only writes
 * sends a NOTIFY after the commit, coalesced so that a burst of commits does not send one each. "Another process" here is a second
 * provider on its own pool and LISTEN connection, and a plain pg client listening on the channel.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES, RowFactory, servicesUp } from '@protean-ts/conformance';
import { OUTBOX_CHANNEL, OUTBOX_TABLE, PostgresProvider } from '../src/index.js';
import { createTempDatabase, type TempDatabase } from './support/temp-database.js';

const up = await servicesUp(POSTGRES);
const COMMITS = 30;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!up)('PostgreSQL outbox: waking relays after a commit', () => {
  let db: TempDatabase;
  let producer: PostgresProvider;
  let otherProcess: PostgresProvider;
  let listener: pg.Client;
  const notifications: string[] = [];
  const rows = new RowFactory();

  beforeAll(async () => {
    db = await createTempDatabase('outbox_signal');
    producer = new PostgresProvider('default', { provider: 'postgresql', database_uri: db.uri, managed: true, pool_size: 8 });
    otherProcess = new PostgresProvider('default', { provider: 'postgresql', database_uri: db.uri, managed: true, pool_size: 2 });
    await producer.connect();
    await otherProcess.connect();
    await producer.setupOutbox();
    listener = new pg.Client({ connectionString: db.uri });
    await listener.connect();
    listener.on('notification', (message) => {
      if (message.channel === OUTBOX_CHANNEL) notifications.push(message.payload ?? '');
    });
    await listener.query(`LISTEN ${OUTBOX_CHANNEL}`);
  });
  afterAll(async () => {
    await listener?.end();
    await producer?.close();
    await otherProcess?.close();
    await db?.drop();
  });

  async function appendAndCommit(key: string): Promise<void> {
    const tx = await producer.begin();
    await producer.outbox.append(tx, [rows.row(key, 1)]);
    await tx.commit();
  }

  async function until(condition: () => boolean, what: string): Promise<void> {
    for (let i = 0; i < 250 && !condition(); i++) await sleep(20);
    expect(condition(), what).toBe(true);
  }

  it('a process without a relay of its own wakes the relays of other processes through NOTIFY', async () => {
    notifications.length = 0;
    let remote = 0;
    const stopRemote = await otherProcess.outbox.onAppended(() => (remote += 1));
    try {
      await appendAndCommit('notified');
      await until(() => remote >= 1, 'the other process heard of the commit');
      // The payload names the table (every schema's outbox shares the channel) and the sender.
      expect(notifications).toHaveLength(1);
      expect(notifications[0]!.startsWith(`${producer.qualify(OUTBOX_TABLE)}\n`)).toBe(true);
    } finally {
      await stopRemote();
    }
  });

  it('a process that relays its outbox wakes its relay directly and sends no NOTIFY', async () => {
    notifications.length = 0;
    let local = 0;
    let remote = 0;
    const stopLocal = await producer.outbox.onAppended(() => (local += 1));
    const stopRemote = await otherProcess.outbox.onAppended(() => (remote += 1));
    try {
      const tx = await producer.begin();
      await producer.outbox.append(tx, [rows.row('direct', 1)]);
      let localAtCommit = -1;
      await tx.commit().then(() => (localAtCommit = local));
      // The wake-up is part of commit() returning: no round trip to the database and back.
      expect(localAtCommit).toBe(1);
      await sleep(300);
      expect(local).toBe(1);
      expect(notifications).toEqual([]);
      expect(remote).toBe(0);
    } finally {
      await stopLocal();
      await stopRemote();
    }
    // Once its relay stopped listening, its commits are announced again.
    await appendAndCommit('after-relay-stopped');
    await until(() => notifications.length === 1, 'the NOTIFY after the relay stopped');
  });

  it('sends fewer NOTIFYs than commits when commits come in a burst, and the last commit is always signalled', async () => {
    notifications.length = 0;
    let remote = 0;
    const stopRemote = await otherProcess.outbox.onAppended(() => (remote += 1));
    try {
      await Promise.all(Array.from({ length: COMMITS }, (_, i) => appendAndCommit(`burst-${i}`)));
      await until(() => notifications.length >= 1 && remote >= 1, 'the burst was signalled');
      // A NOTIFY asked for while one is on its way goes out after it: give it time to arrive.
      await sleep(300);
      expect(notifications.length).toBeGreaterThanOrEqual(1);
      expect(notifications.length).toBeLessThan(COMMITS);
      const heard = notifications.length;
      // A commit after the burst has settled is signalled on its own.
      await appendAndCommit('after-burst');
      await until(() => notifications.length > heard, 'the commit after the burst was signalled');
    } finally {
      await stopRemote();
    }
  });

  it('a rolled-back transaction sends no NOTIFY', async () => {
    await sleep(200);
    notifications.length = 0;
    const tx = await producer.begin();
    await producer.outbox.append(tx, [rows.row('rolled-back', 1)]);
    await tx.rollback();
    await sleep(300);
    expect(notifications).toEqual([]);
  });
});
