/**
 * The Domain instance every element of the shop registers with. Import `domain` from
 * `./domain.js`, which also loads every element; this module only creates the registry, so
 * element modules can import it without an import cycle.
 */
import { Domain } from '@protean-ts/core';

// `root` makes domain.init() look for domain.toml next to this package, wherever it runs from.
export const domain = new Domain('Shop', { root: import.meta.url });
