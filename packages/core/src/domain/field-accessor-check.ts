/**
 * At `domain.init()`, before any object is created: every registered element with fields is
 * constructed once to see whether class-field definitions (useDefineForClassFields) hide its
 * field accessors. Without this, the domain would start and every field would read undefined.
 */
import type { ClassRef } from '../fields/field-definition.js';
import { fieldsOf } from '../fields/field-metadata.js';
import { refuseShadowedFields } from '../fields/decorator-settings.js';
import type { ElementRegistry } from '../registry/registry.js';

const WITH_FIELDS = ['aggregate', 'entity', 'valueObject', 'event', 'command'] as const;

export function checkFieldAccessors(registry: ElementRegistry): void {
  for (const kind of WITH_FIELDS) {
    for (const record of registry.recordsOf(kind)) {
      const cls = record.cls as ClassRef;
      if (fieldsOf(cls).length === 0) continue;
      let instance: object;
      try {
        instance = new cls() as object;
      } catch {
        // A constructor that needs arguments is the user's; creating it through create() checks it later.
        continue;
      }
      refuseShadowedFields(cls, instance);
    }
  }
}
