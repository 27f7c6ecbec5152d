/**
 * Core's structure reads top-down (docs/architecture.md, "The folders of core"): no file of
 * packages/core/src reaches, through its imports, back to itself; no two folders import each
 * other; and every import between folders runs down the layers listed here.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { folderLoops, importGraph, importLoops, layerViolations, type ImportGraph } from './import-loops.js';

const coreSource = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

/** The folders of core/src, bottom first; a folder imports only folders listed before it. */
const CORE_LAYERS = [
  'errors',
  'fields',
  'config',
  'temporary-database',
  'messages',
  'logging',
  'tracing',
  'ports',
  'adapters',
  'elements',
  'uow',
  'repository',
  'registry',
  'processing',
  'process-managers',
  'runtime',
  'domain',
] as const;

describe('imports inside packages/core/src', () => {
  const graph = importGraph(coreSource);

  it('form no loop (move the shared type or function down into a file both sides can import)', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(importLoops(graph).map((loop) => loop.join(' -> '))).toEqual([]);
  });

  it('form no loop between folders (move the type or function into the folder it belongs to)', () => {
    expect(folderLoops(graph)).toEqual([]);
  });

  it('run down the layers of docs/architecture.md (a new folder joins CORE_LAYERS and the doc)', () => {
    expect(layerViolations(graph, CORE_LAYERS)).toEqual([]);
  });

  it('the loop finder names a loop of types and a file importing itself, and passes a one-way chain', () => {
    const loops: ImportGraph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['d.ts']],
      ['e.ts', ['a.ts']],
    ]);
    expect(importLoops(loops)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['d.ts']]);
    expect(
      importLoops(
        new Map([
          ['x.ts', ['y.ts']],
          ['y.ts', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('the folder-loop finder names the files of two folders importing each other, with no file loop', () => {
    // ports/a -> config/b and config/c -> ports/d: no file reaches itself, but the folders do.
    const folders: ImportGraph = new Map([
      [path.join('ports', 'a.ts'), [path.join('config', 'b.ts')]],
      [path.join('config', 'b.ts'), []],
      [path.join('config', 'c.ts'), [path.join('ports', 'd.ts')]],
      [path.join('ports', 'd.ts'), [path.join('errors', 'e.ts')]],
      [path.join('errors', 'e.ts'), []],
      ['index.ts', [path.join('ports', 'a.ts')]],
    ]);
    expect(importLoops(folders)).toEqual([]);
    expect(folderLoops(folders)).toEqual([
      [`${path.join('config', 'c.ts')} -> ${path.join('ports', 'd.ts')}`, `${path.join('ports', 'a.ts')} -> ${path.join('config', 'b.ts')}`],
    ]);
    // A loop through three folders is named too; dropping the way back clears it.
    const ring: ImportGraph = new Map([
      [path.join('a', 'x.ts'), [path.join('b', 'x.ts')]],
      [path.join('b', 'x.ts'), [path.join('c', 'x.ts')]],
      [path.join('c', 'x.ts'), []],
      [path.join('c', 'y.ts'), [path.join('a', 'y.ts')]],
      [path.join('a', 'y.ts'), []],
    ]);
    expect(folderLoops(ring)).toHaveLength(1);
    expect(folderLoops(ring)[0]).toHaveLength(3);
    ring.set(path.join('c', 'y.ts'), []);
    expect(folderLoops(ring)).toEqual([]);
  });

  it('the layer check names an import up the layers and a folder the list leaves out', () => {
    const layered: ImportGraph = new Map([
      [path.join('config', 'a.ts'), [path.join('errors', 'b.ts')]],
      [path.join('errors', 'b.ts'), [path.join('config', 'c.ts')]],
      [path.join('config', 'c.ts'), []],
      [path.join('extra', 'd.ts'), []],
    ]);
    expect(layerViolations(layered, ['errors', 'config'])).toEqual([
      `${path.join('errors', 'b.ts')} -> ${path.join('config', 'c.ts')}: errors/ is below config/`,
      `${path.join('extra', 'd.ts')}: its folder extra/ is not in the layer list`,
    ]);
    layered.set(path.join('errors', 'b.ts'), []);
    layered.delete(path.join('extra', 'd.ts'));
    expect(layerViolations(layered, ['errors', 'config'])).toEqual([]);
  });
});
