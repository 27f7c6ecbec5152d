/**
 * The relative imports of a source folder as a graph, and its loops (strongly connected
 * components of more than one file, or a file importing itself). Type-only imports and
 * re-exports count: a loop of types still ties the files' layers together.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export type ImportGraph = Map<string, string[]>;

/** Every `.ts` file under `root` and the files of `root` it imports, as paths relative to `root`. */
export function importGraph(root: string): ImportGraph {
  const files = sourceFiles(root);
  const known = new Set(files);
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    const imported = ts
      .preProcessFile(text, true, true)
      .importedFiles.map((reference) => reference.fileName)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => path.normalize(path.join(path.dirname(file), specifier.replace(/\.js$/, '.ts'))))
      .filter((target) => known.has(target));
    graph.set(file, [...new Set(imported)]);
  }
  return graph;
}

/** The loops of `graph`, each as its files in a stable order; empty when imports run one way. */
export function importLoops(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const loops: string[][] = [];
  let next = 0;
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)?.includes(file)) loops.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return loops;
}

function sourceFiles(root: string, folder = ''): string[] {
  return fs.readdirSync(path.join(root, folder), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(root, relative);
    return entry.name.endsWith('.ts') ? [relative] : [];
  });
}
