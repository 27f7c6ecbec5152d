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

/** The folder directly under the root that holds `file`, or null for a file at the root (the package's index). */
export function folderOf(file: string): string | null {
  const parts = file.split(path.sep);
  return parts.length > 1 ? parts[0]! : null;
}

/**
 * The loops between folders: for each set of folders that reach each other through their
 * imports, the file imports that tie them together (`a/x.ts -> b/y.ts`), so a failure names the
 * files to change. Empty when every folder's imports run one way.
 */
export function folderLoops(graph: ImportGraph): string[][] {
  const folders: ImportGraph = new Map();
  const crossings: Array<{ from: string; to: string; line: string }> = [];
  for (const [file, targets] of graph) {
    const from = folderOf(file);
    if (from === null) continue;
    if (!folders.has(from)) folders.set(from, []);
    for (const target of targets) {
      const to = folderOf(target);
      if (to === null || to === from) continue;
      if (!folders.get(from)!.includes(to)) folders.get(from)!.push(to);
      crossings.push({ from, to, line: `${file} -> ${target}` });
    }
  }
  return importLoops(folders).map((loop) =>
    crossings
      .filter((crossing) => loop.includes(crossing.from) && loop.includes(crossing.to))
      .map((crossing) => crossing.line)
      .sort(),
  );
}

/**
 * The imports that do not run down `layers` (folder names, bottom first): from a folder into
 * one listed after it, or from or into a folder the list does not name.
 */
export function layerViolations(graph: ImportGraph, layers: readonly string[]): string[] {
  const violations = new Set<string>();
  for (const [file, targets] of graph) {
    const from = folderOf(file);
    if (from === null) continue;
    if (!layers.includes(from)) violations.add(`${file}: its folder ${from}/ is not in the layer list`);
    for (const target of targets) {
      const to = folderOf(target);
      if (to === null || to === from || !layers.includes(from)) continue;
      if (!layers.includes(to)) violations.add(`${file} -> ${target}: ${to}/ is not in the layer list`);
      else if (layers.indexOf(to) > layers.indexOf(from)) violations.add(`${file} -> ${target}: ${from}/ is below ${to}/`);
    }
  }
  return [...violations].sort();
}
