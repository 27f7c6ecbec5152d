/**
 * How deep a message may nest. `canonicalJson` refuses containers nested deeper than this (root
 * at depth 0), so no envelope the framework wrote is deeper; a received one that is came from
 * elsewhere. It is refused before anything recursive touches it: JSON.parse accepts any depth,
 * but JSON.stringify and structuredClone overflow the stack a few thousand levels down.
 */
export const MAX_MESSAGE_NESTING = 200;

/**
 * Whether `value` holds an object or array deeper than `maxDepth` (the root container is at
 * depth 0, as in `canonicalJson`). Walks with an explicit stack, so any depth is measured safely;
 * it stops at the first container past the limit.
 */
export function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  const pending: [item: unknown, depth: number][] = [[value, 0]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > maxDepth) return true;
    const children = Array.isArray(item) ? item : Object.values(item);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) pending.push([child, depth + 1]);
    }
  }
  return false;
}
