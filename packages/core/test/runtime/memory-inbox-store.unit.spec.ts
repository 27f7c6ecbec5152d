/** The memory inbox against the shared InboxStore conformance suite. */
import { MemoryProvider } from '../../src/adapters/memory/memory-provider.js';
import { describeInboxStoreConformance } from '@protean-ts/conformance';

describeInboxStoreConformance('memory', { open: async () => new MemoryProvider('default') });
