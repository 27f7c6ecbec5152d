/**
 * `schema check`'s verdicts, one row per kind of change: two versions of a domain
 * (contracts-fixture-domains.ts) are exported and compared, and every change must come out with
 * the verdict and severity the row names, and nothing else may be reported.
 */
import { describe, expect, it } from 'vitest';
import { domainContracts } from '../src/contracts/domain-contracts.js';
import { compareContracts, upcasterPathExists, type ContractChange } from '../src/contracts/compare-contracts.js';
import { renderCheck } from '../src/contracts/check-report.js';
import { after, before } from './contracts-fixture-domains.js';

const result = compareContracts(domainContracts(before), domainContracts(after));
const row = (message: string, change: string, field?: string): ContractChange | undefined =>
  result.changes.find((c) => c.message === `Bank.${message}` && c.change === change && (field === undefined || c.field === field));

// message, change, field, verdict, severity
const TABLE: [string, string, string | undefined, string, string][] = [
  ['Renamed', 'field-renamed', 'amount', 'breaking', 'error'],
  ['TypeChanged', 'type-changed', 'quantity', 'breaking', 'error'],
  ['Widened', 'type-changed', 'rate', 'backward', 'warning'],
  ['OptionalAdded', 'field-added', 'note', 'full', 'info'],
  ['RequiredAdded', 'field-added', 'reason', 'forward', 'error'],
  ['DefaultedAdded', 'field-added', 'channel', 'full', 'info'],
  ['RequiredRemoved', 'field-removed', 'branch', 'backward', 'error'],
  ['OptionalRemoved', 'field-removed', 'note', 'full', 'info'],
  ['Upcast', 'version-bumped', undefined, 'full', 'info'],
  ['Upcast', 'field-renamed', 'amount', 'breaking', 'warning'],
  ['NotUpcast', 'upcaster-gap', undefined, 'breaking', 'error'],
  ['PublishedRemoved', 'message-removed', undefined, 'breaking', 'error'],
  ['InternalRemoved', 'message-removed', undefined, 'breaking', 'warning'],
  ['Tightened', 'constraint-tightened', 'memo', 'forward', 'error'],
  ['Loosened', 'constraint-loosened', 'tier', 'backward', 'error'],
  ['ChoicesExtended', 'constraint-loosened', 'level', 'backward', 'warning'],
  ['MadeRequired', 'made-required', 'reference', 'forward', 'error'],
  ['Unpublished', 'unpublished', undefined, 'breaking', 'error'],
  ['Nested', 'field-added', 'amount.currency', 'forward', 'error'],
  ['Moved', 'stream-changed', undefined, 'breaking', 'warning'],
  ['Added', 'message-added', undefined, 'full', 'info'],
  ['OpenAccount', 'version-bumped', undefined, 'full', 'info'],
  ['OpenAccount', 'upcaster-gap', undefined, 'breaking', 'warning'],
];

describe('schema check verdicts', () => {
  it.each(TABLE)('%s: %s %s is %s (%s)', (message, change, field, verdict, severity) => {
    const found = row(message, change, field);
    expect(found, JSON.stringify(result.changes.filter((c) => c.message === `Bank.${message}`))).toBeDefined();
    expect({ verdict: found!.verdict, severity: found!.severity }).toEqual({ verdict, severity });
  });

  it('reports nothing else: each change is a row of the table, an unchanged event none', () => {
    const listed = new Set(TABLE.map(([message, change, field]) => `${message}|${change}|${field ?? ''}`));
    const extra = result.changes.filter((c) => !listed.has(`${c.message.slice('Bank.'.length)}|${c.change}|${c.field ?? ''}`));
    expect(extra).toEqual([]);
    expect(result.changes.filter((c) => c.message === 'Bank.Unchanged')).toEqual([]);
    expect(result.changes).toHaveLength(TABLE.length);
  });

  it('counts errors for the exit status and names the weakest verdict', () => {
    expect(result.errors).toBe(TABLE.filter((r) => r[4] === 'error').length);
    expect(result.verdict).toBe('breaking');
    const text = renderCheck(result, 'contracts.json');
    expect(text).toMatch(/ERROR\s+breaking\s+field-renamed\s+Bank\.Renamed amount: renamed to total/);
    expect(text).toContain('The check fails');
  });

  it('finds nothing between a domain and itself', () => {
    const same = compareContracts(domainContracts(after), domainContracts(after));
    expect(same).toEqual({ changes: [], verdict: 'full', errors: 0, warnings: 0 });
  });

  it('follows upcaster steps without gaps', () => {
    expect(
      upcasterPathExists(
        [
          { from: 1, to: 2 },
          { from: 2, to: 4 },
        ],
        1,
        4,
      ),
    ).toBe(true);
    expect(upcasterPathExists([{ from: 1, to: 2 }], 1, 3)).toBe(false);
    expect(upcasterPathExists([{ from: 2, to: 3 }], 1, 3)).toBe(false);
  });
});
