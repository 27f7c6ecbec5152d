/**
 * Core's structure reads top-down: no file of packages/core/src reaches, through its imports,
 * back to itself (docs/architecture.md, "The folders of core").
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importGraph, importLoops, type ImportGraph } from './import-loops.js';

const coreSource = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

describe('imports inside packages/core/src', () => {
  it('form no loop (move the shared type or function down into a file both sides can import)', () => {
    const graph = importGraph(coreSource);
    expect(graph.size).toBeGreaterThan(100);
    expect(importLoops(graph).map((loop) => loop.join(' -> '))).toEqual([]);
  });

  it('the loop finder names a loop of types and a file importing itself, and passes a one-way chain', () => {
    const graph: ImportGraph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['d.ts']],
      ['e.ts', ['a.ts']],
    ]);
    expect(importLoops(graph)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['d.ts']]);
    expect(
      importLoops(
        new Map([
          ['x.ts', ['y.ts']],
          ['y.ts', []],
        ]),
      ),
    ).toEqual([]);
  });
});
