/** A projection names a database like an aggregate does; `domain.init()` refuses one that is not configured. */
import type { DomainConfig } from '../config/config-types.js';
import type { ElementRegistry } from '../registry/registry.js';

export function projectionProviderProblems(registry: ElementRegistry, config: DomainConfig): { path: string; message: string }[] {
  return registry
    .recordsOf('projection')
    .filter((record) => !(record.options.provider in config.databases))
    .map((record) => ({
      path: `databases.${record.options.provider}`,
      message: `projection ${record.name} uses database "${record.options.provider}", which is not configured; add a [databases.${record.options.provider}] table or change its provider option`,
    }));
}
