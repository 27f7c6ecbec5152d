/**
 * The contract of one field: what a reader of a message may rely on (kind, required, limits,
 * nested value objects), taken from the field definitions the runtime validates with. It is
 * plain JSON, so a saved export can be compared with today's domain without its classes.
 */
import { fieldsOf, type ClassRef, type FieldDefinition, type FieldKind } from '@protean-ts/core';

export interface FieldContract {
  name: string;
  kind: FieldKind;
  /** A missing value (absent, null, '' for text kinds) is refused. */
  required: boolean;
  /** A default (or autoNow) fills the field when a message leaves it out. */
  hasDefault: boolean;
  description?: string;
  minLength?: number;
  maxLength?: number;
  choices?: string[];
  /** A regular expression's source; `patternFlags` when it has flags JSON Schema cannot carry. */
  pattern?: string;
  patternFlags?: string;
  min?: number;
  max?: number;
  precision?: number;
  scale?: number;
  /** status: the allowed values. */
  values?: string[];
  /** list: the item kind, or `valueObject` for a list of value objects. */
  of?: string;
  /** valueObject / hasOne / hasMany / reference / list of value objects: the class named. */
  target?: string;
  /** The fields of the nested value object or entity. */
  fields?: FieldContract[];
}

/** Value objects nest; a class that contains itself is cut off here rather than looping. */
const MAX_NESTING = 16;

export function fieldContractsOf(cls: ClassRef, depth = 0): FieldContract[] {
  return fieldsOf(cls).map((definition) => fieldContractOf(definition, depth));
}

function fieldContractOf(def: FieldDefinition, depth: number): FieldContract {
  const contract: FieldContract = {
    name: def.name,
    kind: def.kind,
    required: def.required || (def.identifier && !def.implicit),
    hasDefault: def.default !== undefined || def.autoNow === true || def.kind === 'hasMany',
  };
  if (def.description) contract.description = def.description;
  if (def.minLength !== undefined) contract.minLength = def.minLength;
  if (def.maxLength !== undefined) contract.maxLength = def.maxLength;
  if (def.choices) contract.choices = [...def.choices];
  if (def.pattern) {
    contract.pattern = def.pattern.source;
    const flags = def.pattern.flags.replace(/[gy]/g, '');
    if (flags) contract.patternFlags = flags;
  }
  if (def.min !== undefined) contract.min = def.min;
  if (def.max !== undefined) contract.max = def.max;
  if (def.precision !== undefined) contract.precision = def.precision;
  if (def.scale !== undefined) contract.scale = def.scale;
  if (def.values) contract.values = [...def.values];
  const nested = nestedClassOf(def);
  if (def.kind === 'list') contract.of = typeof def.of === 'function' ? 'valueObject' : def.of;
  if (nested) {
    contract.target = nested.name;
    if (def.kind !== 'reference' && depth < MAX_NESTING) contract.fields = fieldContractsOf(nested, depth + 1);
  }
  return contract;
}

function nestedClassOf(def: FieldDefinition): ClassRef | undefined {
  if (def.kind === 'list') return typeof def.of === 'function' ? def.of() : undefined;
  return def.target?.();
}
