/**
 * Whether one field contract accepts every value another accepts: the question behind each
 * compatibility verdict. New readers read old messages when the new field accepts all the old
 * one did (backward); old readers read new messages in the other direction (forward). Unknown
 * properties are ignored on receipt (`fromPlain`), so only the fields a reader declares matter.
 */
import type { FieldContract } from './field-contract.js';

/** A reader's field accepts an absent value when it is optional or filled by a default. */
export const allowsAbsent = (field: FieldContract): boolean => !field.required || field.hasDefault;
/** null (how a missing value is written) is accepted only by an optional field. */
export const allowsNull = (field: FieldContract): boolean => !field.required;

/** Does `reader` accept every value `writer` may hold, missing ones included? */
export function fieldAccepts(reader: FieldContract, writer: FieldContract): boolean {
  if (allowsAbsent(writer) && !allowsAbsent(reader)) return false;
  if (allowsNull(writer) && !allowsNull(reader)) return false;
  return valueAccepts(reader, writer);
}

/** Fields the reader declares and the writer's objects do not have must allow absence. */
export function objectAccepts(reader: readonly FieldContract[], writer: readonly FieldContract[]): boolean {
  const written = new Map(writer.map((field) => [field.name, field]));
  return reader.every((field) => {
    const other = written.get(field.name);
    return other ? fieldAccepts(field, other) : allowsAbsent(field);
  });
}

interface TextLimits {
  minLength: number;
  maxLength: number;
  choices?: readonly string[];
  pattern?: string;
  nonBlank: boolean;
}

function textLimits(field: FieldContract): TextLimits | undefined {
  switch (field.kind) {
    case 'string':
    case 'text':
      return {
        minLength: field.minLength ?? 0,
        maxLength: field.maxLength ?? Infinity,
        choices: field.choices,
        pattern: field.pattern === undefined ? undefined : `/${field.pattern}/${field.patternFlags ?? ''}`,
        nonBlank: false,
      };
    case 'identifier':
    case 'reference':
      return { minLength: 1, maxLength: 255, nonBlank: true };
    case 'status':
      return { minLength: 0, maxLength: Infinity, choices: field.values, nonBlank: true };
    default:
      return undefined;
  }
}

function textAccepts(reader: TextLimits, writer: TextLimits): boolean {
  if (writer.choices && writer.choices.every((choice) => textValueAccepted(reader, choice))) return true;
  if (reader.minLength > writer.minLength || reader.maxLength < writer.maxLength) return false;
  if (reader.choices) return false;
  if (reader.pattern !== undefined && reader.pattern !== writer.pattern) return false;
  return !reader.nonBlank || writer.nonBlank;
}

function textValueAccepted(reader: TextLimits, value: string): boolean {
  if (value.length < reader.minLength || value.length > reader.maxLength) return false;
  if (reader.choices && !reader.choices.includes(value)) return false;
  if (reader.nonBlank && value.trim() === '') return false;
  // A pattern cannot be compared with another; a listed value can be tried against it.
  if (reader.pattern !== undefined) {
    const match = /^\/(.*)\/([a-z]*)$/s.exec(reader.pattern);
    if (!match || !new RegExp(match[1]!, match[2]).test(value)) return false;
  }
  return true;
}

interface NumberLimits {
  whole: boolean;
  min: number;
  max: number;
}

function numberLimits(field: FieldContract): NumberLimits | undefined {
  if (field.kind !== 'integer' && field.kind !== 'float' && field.kind !== 'decimal') return undefined;
  let max = field.max ?? Infinity;
  let min = field.min ?? -Infinity;
  if (field.kind === 'decimal' && field.precision !== undefined) {
    const bound = 10 ** (field.precision - (field.scale ?? 0));
    max = Math.min(max, bound);
    min = Math.max(min, -bound);
  }
  const whole = field.kind === 'integer' || (field.kind === 'decimal' && field.precision !== undefined && (field.scale ?? 0) === 0);
  return { whole, min, max };
}

function numberAccepts(reader: NumberLimits, writer: NumberLimits): boolean {
  return (!reader.whole || writer.whole) && reader.min <= writer.min && reader.max >= writer.max;
}

function valueAccepts(reader: FieldContract, writer: FieldContract): boolean {
  const readerText = textLimits(reader);
  const writerText = textLimits(writer);
  if (readerText || writerText) return !!readerText && !!writerText && textAccepts(readerText, writerText);
  const readerNumber = numberLimits(reader);
  const writerNumber = numberLimits(writer);
  if (readerNumber || writerNumber) return !!readerNumber && !!writerNumber && numberAccepts(readerNumber, writerNumber);
  if (reader.kind !== writer.kind) {
    const single = (kind: string) => kind === 'valueObject' || kind === 'hasOne';
    if (!(single(reader.kind) && single(writer.kind))) return false;
  }
  switch (reader.kind) {
    case 'list':
      if (reader.of !== writer.of) return false;
      return reader.of !== 'valueObject' || objectAccepts(reader.fields ?? [], writer.fields ?? []);
    case 'hasMany':
    case 'valueObject':
    case 'hasOne':
      return objectAccepts(reader.fields ?? [], writer.fields ?? []);
    default:
      return true; // boolean, date, datetime, dict: no limits of their own
  }
}
