/** The event store's interleaving property on the memory store at load size: a random seed (FC_SEED repeats one), 5,000 runs (FC_RUNS). */
import { MemoryProvider } from '../../src/adapters/memory/memory-provider.js';
import { describeEventStoreReaderProperty } from '@protean-ts/conformance';

describeEventStoreReaderProperty('memory', { open: async () => new MemoryProvider('default'), propertyRuns: 5_000 });
