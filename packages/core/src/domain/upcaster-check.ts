/**
 * Checks of the registered upcasters, run by `domain.init()`: each names a registered event and
 * goes up (`from < to`) to at most the event's current version; no two read the same version of
 * one event; they form no cycle; and every chain ends at the event's current version, so any
 * version an upcaster reads can be loaded.
 */
import type { ClassRef } from '../fields/field-definition.js';
import type { ElementRegistry } from '../registry/registry.js';
import type { UpcasterEntry } from './upcaster-entry.js';

const nameOf = (cls: unknown): string => (typeof cls === 'function' ? cls.name : String(cls));
const isVersion = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 1;

export function upcasterProblems(registry: ElementRegistry, entries: readonly UpcasterEntry[]): string[] {
  const problems: string[] = [];
  const byEvent = new Map<ClassRef, UpcasterEntry[]>();
  for (const entry of entries) {
    const where = `${entry.cls.name} (upcaster)`;
    const record = typeof entry.event === 'function' ? registry.recordOf(entry.event) : undefined;
    if (record?.kind !== 'event') {
      problems.push(`${where}: event ${nameOf(entry.event)} is not a registered event; register it with @domain.event`);
      continue;
    }
    if (!isVersion(entry.from) || !isVersion(entry.to)) {
      problems.push(`${where}: from and to must be integers >= 1 (got from ${String(entry.from)}, to ${String(entry.to)})`);
      continue;
    }
    const current = record.options.version;
    if (entry.from >= entry.to) problems.push(`${where}: from v${entry.from} to v${entry.to} does not go up; from must be below to`);
    else if (entry.to > current)
      problems.push(`${where}: to v${entry.to} is above ${record.name}'s current version v${current}; raise @domain.event({ version }) or lower to`);
    byEvent.set(record.cls, [...(byEvent.get(record.cls) ?? []), entry]);
  }
  for (const [event, list] of byEvent) checkChains(registry, event, list, problems);
  return problems;
}

function checkChains(registry: ElementRegistry, event: ClassRef, list: readonly UpcasterEntry[], problems: string[]): void {
  const record = registry.recordOf(event)!;
  const current = (record.options as { version: number }).version;
  const next = new Map<number, UpcasterEntry>();
  for (const entry of list) {
    const same = next.get(entry.from);
    if (same) problems.push(`${record.name}: two upcasters from v${entry.from} (${same.cls.name}, ${entry.cls.name}); keep one`);
    else next.set(entry.from, entry);
  }
  const cycles = new Set<string>();
  for (const start of next.values()) {
    const path: UpcasterEntry[] = [];
    const seen = new Set<number>();
    let version = start.from;
    for (let step = next.get(version); step; step = next.get(version)) {
      if (seen.has(version)) {
        const loop = path.slice(path.findIndex((entry) => entry.from === version));
        const key = loop
          .map((entry) => entry.from)
          .sort((a, b) => a - b)
          .join(',');
        if (!cycles.has(key)) {
          cycles.add(key);
          problems.push(
            `${record.name}: upcasters form a cycle ${[...loop.map((entry) => `v${entry.from}`), `v${version}`].join(' → ')} (${loop.map((entry) => entry.cls.name).join(', ')}); each must go up to the current version v${current}`,
          );
        }
        break;
      }
      seen.add(version);
      path.push(step);
      version = step.to;
    }
    // A chain that stops short of the current version (or overshoots it) never converges.
    if (!seen.has(version) && version !== current && start.from < start.to && start.to <= current) {
      problems.push(
        `${record.name}: the chain from v${start.from} (${path.map((entry) => entry.cls.name).join(' → ')}) stops at v${version}, not at the current version v${current}; add @domain.upcaster({ event: ${record.name}, from: ${version}, to: ... })`,
      );
    }
  }
}
