/** The command outcome janitor: removes records past retention_hours (keys freed with them), keeps younger ones, and runs often enough for a short retention. */
import { describe, expect, it } from 'vitest';
import { getLogger, MemoryCommandOutcomeStore, MemoryProvider } from '@protean-ts/core';
import { cleanupIntervalMs, CommandOutcomeJanitor } from '../src/engine/command-outcome-janitor.js';

describe('CommandOutcomeJanitor', () => {
  it('deletes the records older than retention_hours and keeps the others', async () => {
    const provider = new MemoryProvider('default');
    const anHourAgo = new MemoryCommandOutcomeStore('default', () => new Date(Date.now() - 3_600_000));
    for (const [store, commandId] of [
      [anHourAgo, 'old'],
      [provider.commandOutcomes, 'new'],
    ] as const) {
      const tx = await provider.begin();
      await store.claim(tx, { commandId, commandType: 'T.C.v1', idempotencyKey: `key-${commandId}` });
      await tx.commit();
    }

    const keepAll = new CommandOutcomeJanitor(anHourAgo, 'default', 2, getLogger('test'));
    expect(await keepAll.run()).toBe(0);
    const halfAnHour = new CommandOutcomeJanitor(anHourAgo, 'default', 0.5, getLogger('test'));
    await halfAnHour.start();
    await halfAnHour.stop();
    expect(await anHourAgo.get('old')).toBeNull();
    // The key of a removed record is free again.
    const tx = await provider.begin();
    expect(await anHourAgo.claim(tx, { commandId: 'again', commandType: 'T.C.v1', idempotencyKey: 'key-old' })).toEqual({ claimed: true });
    await tx.rollback();
    expect((await provider.commandOutcomes.get('new'))?.status).toBe('pending');
  });

  it('runs every quarter of the retention, between once a second and once an hour', () => {
    expect(cleanupIntervalMs(0.001)).toBe(1_000);
    expect(cleanupIntervalMs(0.01)).toBe(9_000);
    expect(cleanupIntervalMs(24)).toBe(3_600_000);
  });
});
