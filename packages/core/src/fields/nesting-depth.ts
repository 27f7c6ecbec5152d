/**
 * How deep field values may nest: value objects inside value objects, lists, dict levels. A
 * limit keeps a hostile input thousands of levels deep from overflowing the stack, and keeps
 * every accepted element within what canonical JSON (messages, checksums) writes.
 *
 * Building is synchronous, so one counter per process tracks the depth of the build under way.
 */
export const MAX_NESTING_DEPTH = 64;

let depth = 0;

/** Enters one level; false (without entering) when that would pass the limit. */
export function enterNesting(): boolean {
  if (depth >= MAX_NESTING_DEPTH) return false;
  depth += 1;
  return true;
}

export function leaveNesting(): void {
  depth -= 1;
}

/** Levels still free below the current one. */
export function nestingLeft(): number {
  return MAX_NESTING_DEPTH - depth;
}

export const TOO_DEEP = `nests deeper than ${MAX_NESTING_DEPTH} levels (value objects, lists and dict levels count; a cycle never ends)`;
