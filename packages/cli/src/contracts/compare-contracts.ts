/**
 * `schema check`'s judgement: every difference between a saved export (or another version of
 * the code) and today's domain, with a verdict (full, backward, forward, breaking) and a
 * severity. Errors fail the check: a published event old consumers can no longer read, a
 * stored event the domain can no longer load, a version raised without upcasters from the old
 * one, a published event removed. The same changes to internal messages are warnings where
 * they only matter while old and new code run side by side.
 */
import type { ContractsDocument, MessageContract } from './contracts-document.js';
import { fieldChanges, type FieldChangeKind } from './field-changes.js';

/** full: old and new readers both cope; backward: new readers read old messages; forward: old readers read new ones. */
export type Verdict = 'full' | 'backward' | 'forward' | 'breaking';
export type Severity = 'error' | 'warning' | 'info';
export type ChangeKind =
  | FieldChangeKind
  | 'message-added'
  | 'message-removed'
  | 'kind-changed'
  | 'version-bumped'
  | 'version-lowered'
  | 'upcaster-gap'
  | 'published'
  | 'unpublished'
  | 'stream-changed';

export interface ContractChange {
  /** `<Domain>.<Name>` of the message. */
  message: string;
  change: ChangeKind;
  field?: string;
  detail: string;
  verdict: Verdict;
  severity: Severity;
}

export interface CheckResult {
  changes: ContractChange[];
  /** The weakest verdict of all changes; full when nothing changed. */
  verdict: Verdict;
  errors: number;
  warnings: number;
}

export const verdictOf = (backward: boolean, forward: boolean): Verdict =>
  backward && forward ? 'full' : backward ? 'backward' : forward ? 'forward' : 'breaking';

export function compareContracts(before: ContractsDocument, after: ContractsDocument): CheckResult {
  const oldByFqn = new Map(before.messages.map((m) => [m.fqn, m]));
  const newByFqn = new Map(after.messages.map((m) => [m.fqn, m]));
  const changes: ContractChange[] = [];
  for (const old of before.messages) {
    const current = newByFqn.get(old.fqn);
    if (!current) {
      const publishedEvent = old.kind === 'event' && old.published;
      changes.push({
        message: old.fqn,
        change: 'message-removed',
        detail: `${old.kind} ${old.type} was removed${publishedEvent ? '; its consumers in other systems stop receiving it' : ''}`,
        verdict: 'breaking',
        severity: publishedEvent ? 'error' : 'warning',
      });
    } else changes.push(...messageChanges(old, current));
  }
  for (const current of after.messages) {
    if (!oldByFqn.has(current.fqn)) {
      changes.push({ message: current.fqn, change: 'message-added', detail: `new ${current.kind} ${current.type}`, verdict: 'full', severity: 'info' });
    }
  }
  let backward = true;
  let forward = true;
  for (const change of changes) {
    backward &&= change.verdict === 'full' || change.verdict === 'backward';
    forward &&= change.verdict === 'full' || change.verdict === 'forward';
  }
  return {
    changes,
    verdict: verdictOf(backward, forward),
    errors: changes.filter((c) => c.severity === 'error').length,
    warnings: changes.filter((c) => c.severity === 'warning').length,
  };
}

/** Whether the upcasters registered today lead from `from` to `to` without a gap. */
export function upcasterPathExists(steps: readonly { from: number; to: number }[], from: number, to: number): boolean {
  let version = from;
  while (version < to) {
    const step = steps.find((s) => s.from === version && s.to > version && s.to <= to);
    if (!step) return false;
    version = step.to;
  }
  return version === to;
}

function messageChanges(old: MessageContract, current: MessageContract): ContractChange[] {
  const changes: ContractChange[] = [];
  const at = (change: Omit<ContractChange, 'message'>): void => void changes.push({ message: old.fqn, ...change });
  if (old.kind !== current.kind) {
    at({ change: 'kind-changed', detail: `was a ${old.kind}, is a ${current.kind}`, verdict: 'breaking', severity: 'error' });
    return changes;
  }
  const publishedEvent = old.kind === 'event' && old.published;
  if (publishedEvent && !current.published) {
    at({ change: 'unpublished', detail: 'no longer published: consumers in other systems stop receiving it', verdict: 'breaking', severity: 'error' });
  } else if (old.kind === 'event' && !old.published && current.published) {
    at({ change: 'published', detail: 'now published to the external brokers', verdict: 'full', severity: 'info' });
  }
  if (old.streamCategory !== current.streamCategory) {
    at({
      change: 'stream-changed',
      detail: `stream category ${old.streamCategory ?? '-'} → ${current.streamCategory ?? '-'}: subscribers of the old one no longer get it`,
      verdict: 'breaking',
      severity: publishedEvent ? 'error' : 'warning',
    });
  }
  // Old messages keep their old type: after a version bump they reach today's code through the upcasters.
  let upcastsOld = false;
  if (current.version > old.version) {
    upcastsOld = old.kind === 'event' && upcasterPathExists(current.upcasters, old.version, current.version);
    if (upcastsOld || old.kind === 'command') {
      at({
        change: 'version-bumped',
        detail: `v${old.version} → v${current.version}${upcastsOld ? ', old events upcast' : ''}`,
        verdict: 'full',
        severity: 'info',
      });
    }
    if (old.kind === 'event' && !upcastsOld) {
      at({
        change: 'upcaster-gap',
        detail: `v${old.version} → v${current.version} without upcasters from v${old.version}: stored ${old.type} events no longer load; add @domain.upcaster({ event: ${current.name}, from: ${old.version}, to: ... })`,
        verdict: 'breaking',
        severity: 'error',
      });
    } else if (old.kind === 'command') {
      at({
        change: 'upcaster-gap',
        detail: `queued ${old.type} commands (asynchronous or scheduled) are no longer recognised; drain them before deploying`,
        verdict: 'breaking',
        severity: 'warning',
      });
    }
  } else if (current.version < old.version) {
    at({
      change: 'version-lowered',
      detail: `v${old.version} → v${current.version}: stored v${old.version} messages are newer than the code`,
      verdict: 'breaking',
      severity: 'error',
    });
  }
  for (const field of fieldChanges(old.fields, current.fields)) {
    at({
      change: field.change,
      field: field.field,
      detail: field.detail,
      verdict: verdictOf(field.backward, field.forward),
      severity: severityOf(old, field, upcastsOld),
    });
  }
  return changes;
}

function severityOf(old: MessageContract, field: { backward: boolean; forward: boolean }, upcastsOld: boolean): Severity {
  // New readers (this domain's handlers, its event store) meet old messages: upcasters cover that when the version went up.
  const newReadersBreak = !field.backward && !upcastsOld;
  // Old readers: other systems for a published event; for internal messages, old workers during a rolling deploy.
  const oldReadersBreak = !field.forward;
  const publishedEvent = old.kind === 'event' && old.published;
  if ((newReadersBreak && old.kind === 'event') || (oldReadersBreak && publishedEvent)) return 'error';
  if (newReadersBreak || oldReadersBreak) return 'warning';
  return 'info';
}
