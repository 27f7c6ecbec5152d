/**
 * `@invariant.pre()` / `@invariant.post()` mark methods that check an entity's or aggregate's
 * rules: pre before a change, post after it. An invariant reports a violation by throwing
 * ValidationError; every failing invariant of the object is reported together.
 */
import 'reflect-metadata';
import type { ClassRef } from '../fields/field-definition.js';
import { mergeFieldErrors, ValidationError, type FieldErrors } from '../errors/validation.error.js';
import { refuseStandardDecorator } from '../fields/decorator-settings.js';

export type InvariantPhase = 'pre' | 'post';
const INVARIANTS = Symbol('protean:invariants');
const cache = new WeakMap<object, Record<InvariantPhase, string[]>>();

interface InvariantMark {
  phase: InvariantPhase;
  method: string;
}

function mark(phase: InvariantPhase): MethodDecorator {
  return (target, key) => {
    refuseStandardDecorator(`@invariant.${phase}()`, key);
    if (typeof key !== 'string') throw new TypeError('@invariant methods must have string names');
    const own: InvariantMark[] = Reflect.getOwnMetadata(INVARIANTS, target) ?? [];
    Reflect.defineMetadata(INVARIANTS, [...own.filter((m) => m.method !== key), { phase, method: key }], target);
    cache.delete(target.constructor);
  };
}

export const invariant = {
  /** Runs before each change (field assignment, start of `atomicChange`). */
  pre: (): MethodDecorator => mark('pre'),
  /** Runs after creation and after each change (or at the end of `atomicChange`). */
  post: (): MethodDecorator => mark('post'),
};

/** Invariant method names of `cls` for `phase`, inherited ones first. */
export function invariantsOf(cls: ClassRef, phase: InvariantPhase): readonly string[] {
  let entry = cache.get(cls);
  if (!entry) {
    entry = { pre: collect(cls, 'pre'), post: collect(cls, 'post') };
    cache.set(cls, entry);
  }
  return entry[phase];
}

function collect(cls: ClassRef, phase: InvariantPhase): string[] {
  const names: string[] = [];
  const chain: object[] = [];
  for (let p: object | null = cls.prototype; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) chain.unshift(p);
  for (const proto of chain) {
    for (const m of (Reflect.getOwnMetadata(INVARIANTS, proto) ?? []) as InvariantMark[]) {
      const at = names.indexOf(m.method);
      if (at >= 0) names.splice(at, 1);
      if (m.phase === phase) names.push(m.method);
    }
  }
  return names;
}

/** Runs every `phase` invariant of `element`; throws one ValidationError with all violations. */
export function checkInvariants(element: object, phase: InvariantPhase): void {
  const cls = element.constructor as ClassRef;
  const errors: FieldErrors = {};
  for (const method of invariantsOf(cls, phase)) {
    try {
      (element as Record<string, () => unknown>)[method]!();
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      mergeFieldErrors(errors, error.errors);
    }
  }
  if (Object.keys(errors).length) throw new ValidationError(errors, cls.name);
}
