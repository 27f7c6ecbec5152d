/** The inbox janitor: bounded cleanup past retention_hours, and a clear error when the tables are missing. */
import { describe, expect, it } from 'vitest';
import { getLogger, MemoryProvider, type InboxStore } from '@protean-ts/core';
import { InboxJanitor, InboxNotSetUpError } from '../src/engine/inbox-janitor.js';

describe('InboxJanitor', () => {
  it('deletes records older than retention_hours at start and keeps checkpoints', async () => {
    const provider = new MemoryProvider('default');
    for (const messageId of ['m1', 'm2', 'm3']) {
      const tx = await provider.begin();
      await provider.inbox.enter(tx, { subscription: 'S', position: null, messageId, brokerMessageId: '1-0' });
      await tx.commit();
    }
    await provider.inbox.pass('S', [{ key: 'k', sequence: 1 }]);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const kept = new InboxJanitor(provider.inbox, 'default', 1, getLogger('test'));
    await kept.start();
    await kept.stop();
    const tx = await provider.begin();
    expect((await provider.inbox.enter(tx, { subscription: 'S', position: null, messageId: 'm1', brokerMessageId: '1-0' })).kind).toBe('duplicate');
    await tx.rollback();

    const janitor = new InboxJanitor(provider.inbox, 'default', 0, getLogger('test'));
    await janitor.start();
    await janitor.stop();
    const again = await provider.begin();
    expect((await provider.inbox.enter(again, { subscription: 'S', position: null, messageId: 'm1', brokerMessageId: '1-0' })).kind).toBe('next');
    await again.rollback();
    expect(await provider.inbox.checkpoint('S', 'k')).toBe(1);
  });

  it('names the database and the fix when the inbox tables do not exist', async () => {
    const missing = Object.assign(new Error('relation "public.protean_inbox_checkpoints" does not exist'), { code: '42P01' });
    const store = {
      checkpoint: async () => {
        throw missing;
      },
    } as unknown as InboxStore;
    const janitor = new InboxJanitor(store, 'default', 168, getLogger('test'));
    await expect(janitor.start()).rejects.toThrow(InboxNotSetUpError);
    await expect(janitor.start()).rejects.toThrow(/database "default".*protean-ts db setup/);
  });
});
