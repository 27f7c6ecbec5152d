/**
 * CPU time of a process and all its descendants, read from /proc/<pid>/stat (Linux): the server
 * process and its workers, as the kernel counts them, without instrumenting them. A process
 * that exits between two readings takes its CPU with it, so read while they run.
 */
import { readdirSync, readFileSync } from 'node:fs';

// USER_HZ: 100 on every Linux architecture Node supports.
const CLOCK_TICKS_PER_SECOND = 100;

interface ProcStat {
  ppid: number;
  /** utime + stime, in clock ticks. */
  ticks: number;
}

function readStat(pid: number): ProcStat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: fields are counted after its last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state): ppid is field 4, utime 14, stime 15.
    return { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return null; // gone since the directory was listed
  }
}

/** Milliseconds of user + system CPU used so far by `rootPid` and every live descendant. */
export function processTreeCpuMs(rootPid: number): number {
  const stats = new Map<number, ProcStat>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat) stats.set(Number(entry), stat);
  }
  const inTree = new Set([rootPid]);
  // Parents precede children rarely in pid order, so repeat until no process joins.
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, stat] of stats) {
      if (inTree.has(pid) || !inTree.has(stat.ppid)) continue;
      inTree.add(pid);
      grew = true;
    }
  }
  let ticks = 0;
  for (const pid of inTree) ticks += stats.get(pid)?.ticks ?? 0;
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}
