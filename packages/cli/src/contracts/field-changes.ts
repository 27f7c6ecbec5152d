/**
 * The field-level differences between two versions of a message, each with the two facts the
 * verdict needs: can new readers read old messages (backward), can old readers read new ones
 * (forward). A removed field and an added one with the same contract are a rename.
 */
import type { FieldContract } from './field-contract.js';
import { allowsAbsent, fieldAccepts } from './field-compatibility.js';
import { describeField, typeOf } from './catalog-render.js';

export type FieldChangeKind =
  | 'field-added'
  | 'field-removed'
  | 'field-renamed'
  | 'type-changed'
  | 'made-required'
  | 'made-optional'
  | 'constraint-tightened'
  | 'constraint-loosened'
  | 'constraint-changed'
  | 'field-changed';

export interface FieldChange {
  change: FieldChangeKind;
  field: string;
  detail: string;
  backward: boolean;
  forward: boolean;
}

/**
 * The contract without its name, description and class name: what a rename keeps and a reader
 * relies on (the wire carries a value object's fields, never its class).
 */
function shape(field: FieldContract): string {
  const { name: _name, description: _description, target: _target, ...rest } = field;
  return JSON.stringify(rest, (_key, value: unknown) =>
    Array.isArray(value) && value.every((item) => typeof item === 'object' && item !== null && 'name' in item)
      ? [...(value as FieldContract[])].sort((a, b) => a.name.localeCompare(b.name)).map((item) => ({ ...item, description: undefined, target: undefined }))
      : value,
  );
}

const summary = (field: FieldContract): string => `${typeOf(field)} (${describeField(field)})`;

export function fieldChanges(before: readonly FieldContract[], after: readonly FieldContract[], prefix = ''): FieldChange[] {
  const oldByName = new Map(before.map((field) => [field.name, field]));
  const newByName = new Map(after.map((field) => [field.name, field]));
  const removed = before.filter((field) => !newByName.has(field.name));
  const added = after.filter((field) => !oldByName.has(field.name));
  const changes: FieldChange[] = [];

  for (const old of removed) {
    const partner = added.find((field) => shape(field) === shape(old));
    if (partner) {
      added.splice(added.indexOf(partner), 1);
      changes.push({
        change: 'field-renamed',
        field: `${prefix}${old.name}`,
        detail: `renamed to ${prefix}${partner.name}`,
        // New readers miss the new name in old messages; old readers miss the old name in new ones.
        backward: allowsAbsent(partner),
        forward: allowsAbsent(old),
      });
    } else {
      changes.push({
        change: 'field-removed',
        field: `${prefix}${old.name}`,
        detail: `removed (was ${summary(old)})`,
        backward: true,
        forward: allowsAbsent(old),
      });
    }
  }
  for (const field of added) {
    changes.push({ change: 'field-added', field: `${prefix}${field.name}`, detail: `added: ${summary(field)}`, backward: allowsAbsent(field), forward: true });
  }
  for (const old of before) {
    const current = newByName.get(old.name);
    if (current) changes.push(...changedField(old, current, prefix));
  }
  return changes;
}

function changedField(old: FieldContract, current: FieldContract, prefix: string): FieldChange[] {
  if (shape(old) === shape(current)) return [];
  const path = `${prefix}${old.name}`;
  const nestsSame = old.kind === current.kind && old.of === current.of && (old.fields !== undefined || current.fields !== undefined);
  const { fields: _oldFields, ...oldOwn } = old;
  const { fields: _newFields, ...newOwn } = current;
  // A value object that changed inside: report its fields, and the field itself only when its own settings changed too.
  if (nestsSame && shape(oldOwn as FieldContract) === shape(newOwn as FieldContract)) {
    const inner = old.kind === 'list' || old.kind === 'hasMany' ? `${path}[].` : `${path}.`;
    return fieldChanges(old.fields ?? [], current.fields ?? [], inner);
  }
  const backward = fieldAccepts(current, old);
  const forward = fieldAccepts(old, current);
  const detail = `${summary(old)} → ${summary(current)}`;
  const kindChanged = old.kind !== current.kind || old.of !== current.of;
  const presenceChanged = old.required !== current.required || old.hasDefault !== current.hasDefault;
  let change: FieldChangeKind;
  if (kindChanged) change = 'type-changed';
  else if (presenceChanged && !backward && forward) change = 'made-required';
  else if (presenceChanged && backward && !forward) change = 'made-optional';
  else if (backward && forward) change = 'field-changed';
  else if (forward) change = 'constraint-tightened';
  else if (backward) change = 'constraint-loosened';
  else change = 'constraint-changed';
  return [{ change, field: path, detail, backward, forward }];
}
