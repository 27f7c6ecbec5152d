/** The memory event store against the shared EventStore conformance suite. */
import { MemoryProvider } from '../../src/adapters/memory/memory-provider.js';
import { describeEventStoreConformance } from '../../src/testing/event-store-conformance.js';

describeEventStoreConformance('memory', { open: async () => new MemoryProvider('default'), propertyRuns: 1000 });
