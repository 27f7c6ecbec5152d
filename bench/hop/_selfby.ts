import { readFileSync } from 'node:fs';
const [file, filter, n] = process.argv.slice(2);
const p = JSON.parse(readFileSync(file!, 'utf8'));
const byId = new Map(p.nodes.map((x: any) => [x.id, x]));
const self = new Map<string, number>();
p.samples.forEach((id: number, i: number) => {
  const node: any = byId.get(id);
  if (!node.callFrame.url.includes(filter)) return;
  const k = `${node.callFrame.functionName} ${node.callFrame.url.replace(/^.*\/(packages|node_modules)\//, '')}`;
  self.set(k, (self.get(k) ?? 0) + p.timeDeltas[i]);
});
for (const [k, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log((us / Number(n)).toFixed(1).padStart(7), k);
