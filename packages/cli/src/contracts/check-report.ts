/** `schema check`'s report for a terminal: one line per change, errors first, then the totals. */
import type { CheckResult, ContractChange, Severity } from './compare-contracts.js';

const ORDER: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

export const VERDICT_MEANINGS = {
  full: 'old and new readers both read the messages',
  backward: 'new readers read old messages; old readers may fail on new ones',
  forward: 'old readers read new messages; new readers may fail on old ones',
  breaking: 'neither old nor new readers are safe',
} as const;

function line(change: ContractChange): string {
  const where = change.field ? `${change.message} ${change.field}` : change.message;
  return `  ${change.severity.toUpperCase().padEnd(7)} ${change.verdict.padEnd(8)} ${change.change.padEnd(20)} ${where}: ${change.detail}`;
}

export function renderCheck(result: CheckResult, source: string): string {
  if (result.changes.length === 0) return `No contract changes against ${source}.\n`;
  const sorted = [...result.changes].sort((a, b) => ORDER[a.severity] - ORDER[b.severity] || a.message.localeCompare(b.message));
  const lines = [`Contract changes against ${source}:`, ...sorted.map(line), ''];
  lines.push(
    `${result.changes.length} change(s): ${result.errors} error(s), ${result.warnings} warning(s); overall ${result.verdict} (${VERDICT_MEANINGS[result.verdict]}).`,
  );
  if (result.errors)
    lines.push('The check fails: fix the errors, or export again (`protean-ts schema export`) when the break is intended and its consumers are ready.');
  return `${lines.join('\n')}\n`;
}
