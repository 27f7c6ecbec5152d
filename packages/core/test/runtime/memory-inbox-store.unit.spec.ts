/** The memory inbox against the shared InboxStore conformance suite. */
import { MemoryProvider } from '../../src/adapters/memory/memory-provider.js';
import { describeInboxStoreConformance } from '../../src/testing/inbox-store-conformance.js';

describeInboxStoreConformance('memory', { open: async () => new MemoryProvider('default') });
