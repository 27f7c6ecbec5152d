/**
 * Reads a `.cpuprofile` written under BENCH_PROFILE and prints where the time went: self time
 * grouped by owner (our packages, pg driver, ioredis, MikroORM/knex, JSON/crypto natives, Node
 * internals, GC, idle), the top self-time functions, and the inclusive time of chosen functions
 * of ours, each also per message.
 *
 *   npx tsx bench/hop/profile-summary.ts <file.cpuprofile> <messages in the round>
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const [file, messagesArg] = process.argv.slice(2);
if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [messages]');
const messages = Number(messagesArg ?? 1);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
profile.samples.forEach((id, i) => {
  // The delta before a sample is the time it stands for.
  self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});

function owner(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (functionName === '(idle)') return 'idle (waiting for I/O)';
  if (functionName === '(garbage collector)') return 'garbage collector';
  if (functionName === '(program)') return 'V8/native (program)';
  if (url === '') {
    if (/^(parse|stringify)$/.test(functionName)) return 'JSON parse/stringify (native)';
    return 'other natives';
  }
  if (/node_modules\/(pg|pg-protocol|pg-pool|pg-types|postgres-\w+|pgpass|pg-connection-string)\//.test(url)) return 'pg driver';
  if (/node_modules\/(ioredis|redis-parser|@ioredis|denque|standard-as-callback|cluster-key-slot)\//.test(url)) return 'ioredis';
  if (/node_modules\/(@mikro-orm|knex|tarn)\//.test(url)) return 'MikroORM / knex / tarn';
  if (/node_modules\/(tsx|esbuild|source-map|get-tsconfig)/.test(url)) return 'tsx loader';
  if (/node_modules\//.test(url)) return `other deps (${/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1]})`;
  const ours = /\/packages\/([^/]+)\/src\/(.*)$/.exec(url);
  if (ours) return `ours: ${ours[1]}`;
  if (url.includes('/bench/')) return 'bench harness';
  if (url.startsWith('node:internal/crypto')) return 'crypto (sha256 of checksums)';
  if (url.startsWith('node:')) return `node: ${url.replace(/^node:internal\//, '').split('/')[0]}`;
  return `other (${url})`;
}

function label(node: ProfileNode): string {
  const { url, functionName, lineNumber } = node.callFrame;
  const where = url.replace(/^.*\/(packages|node_modules)\//, '$1/').replace(/^file:\/\//, '');
  return `${functionName || '(anonymous)'} ${where ? `${where}:${lineNumber + 1}` : ''}`.trim();
}

const total = profile.endTime - profile.startTime;
const per = (us: number) => `${(us / messages).toFixed(1).padStart(7)} µs/msg`;
const pct = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)} %`;

const groups = new Map<string, number>();
const functions = new Map<string, number>();
for (const [id, us] of self) {
  const node = byId.get(id)!;
  groups.set(owner(node), (groups.get(owner(node)) ?? 0) + us);
  functions.set(label(node), (functions.get(label(node)) ?? 0) + us);
}
console.log(`${file}: ${(total / 1e6).toFixed(2)} s profiled, ${messages} messages (${per(total)} wall)`);
console.log('\nself time by owner:');
for (const [name, us] of [...groups].sort((a, b) => b[1] - a[1])) console.log(`  ${name.padEnd(40)} ${pct(us)} ${per(us)}`);
console.log('\ntop self-time functions:');
for (const [name, us] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`  ${pct(us)} ${per(us)}  ${name}`);

// Inclusive time: a node's self time plus its descendants', summed per function (a function's
// recursive frames counted once per path by only adding at its outermost frame).
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
const inclusive = new Map<string, number>();
for (const [id, us] of self) {
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const node = byId.get(at)!;
    if (!/\/packages\//.test(node.callFrame.url) && !/^(stringify|parse|structuredClone)$/.test(node.callFrame.functionName)) continue;
    const name = label(node);
    if (seen.has(name)) continue;
    seen.add(name);
    inclusive.set(name, (inclusive.get(name) ?? 0) + us);
  }
}
console.log('\ninclusive time, our functions (and JSON/structuredClone natives), top 40:');
for (const [name, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`  ${pct(us)} ${per(us)}  ${name}`);
