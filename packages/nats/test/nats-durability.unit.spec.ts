import { describe, expect, it } from 'vitest';
import { StorageType } from '@nats-io/jetstream';
import { BrokerSettingsError } from '@protean-ts/core';
import { readNatsBrokerSettings } from '../src/nats-broker-settings.js';
import { durabilityProblems } from '../src/nats-durability.js';

describe('nats stream durability', () => {
  it('a file stream of fewer than three replicas depends on the server syncing every write', () => {
    expect(durabilityProblems({ storage: StorageType.File, num_replicas: 1 }, false)).toEqual([
      expect.stringContaining('syncs its files to disk every two minutes'),
    ]);
    expect(durabilityProblems({ storage: StorageType.File, num_replicas: 2 }, false)).toEqual([expect.stringContaining('it has 2 replicas')]);
    expect(durabilityProblems({ storage: StorageType.File, num_replicas: 1 }, true)).toEqual([]);
    expect(durabilityProblems({ storage: StorageType.File, num_replicas: 3 }, false)).toEqual([]);
  });

  it('a memory stream loses everything on a restart, whatever the replicas or the server', () => {
    expect(durabilityProblems({ storage: StorageType.Memory, num_replicas: 3 }, true)).toEqual([expect.stringContaining('memory only')]);
  });

  it('replicas (1 to 5, default 1) and server_sync_always (default false) are checked settings', () => {
    const read = (settings: Record<string, unknown>) => readNatsBrokerSettings('events', { provider: 'nats', uri: 'nats://127.0.0.1:4222', ...settings });
    expect(read({})).toMatchObject({ replicas: 1, serverSyncAlways: false });
    expect(read({ replicas: 3, server_sync_always: true })).toMatchObject({ replicas: 3, serverSyncAlways: true });
    expect(() => read({ replicas: 0 })).toThrow(BrokerSettingsError);
    expect(() => read({ replicas: 6 })).toThrow(/replicas.*between 1 and 5/);
    expect(() => read({ server_sync_always: 'yes' })).toThrow(/server_sync_always.*must be true or false/);
  });
});
