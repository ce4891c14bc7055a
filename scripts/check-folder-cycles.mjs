// Fails when directories depend on each other in a circle at ANY depth: dependency-cruiser's
// `no-directory-cycles` rule sees each leaf directory as its own node, so `src/ops/console` ->
// `src/scheduler` -> `src/ops/metrics` passes it although `ops/` then sits both above and below
// `scheduler/`. Here every file counts for each of its ancestor directories (src/ops, src/ops/console,
// ...), and the graph of each depth must have no cycle through two directories. A file that sits
// above that depth (src/app.ts at depth 2) is a node of its own, so a circle that passes through it
// (src/ops -> src/app.ts -> src/scheduler -> src/ops) counts too, while a parent's files using its
// subdirectory and the reverse (an index.ts, a module wiring) do not. Takes dependency-cruiser's
// JSON (`npm run lint:graph`); type-only imports count too: they say which way a directory
// leans. Run by scripts/check-graph.mjs, on the one cruise `npm run lint:graph` makes.

// The node a file counts for at this depth: its ancestor directory there, or itself if it sits above.
function nodeAt(path, depth) {
  const parts = path.split('/').slice(0, -1);
  return parts.length >= depth
    ? { name: parts.slice(0, depth).join('/'), folder: true }
    : { name: path, folder: false };
}

// Tarjan's strongly connected components; a component of more than one directory is a cycle.
function cycles(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  let next = 0;
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) !== index.get(v)) return;
    const component = [];
    for (let w; w !== v;) {
      w = stack.pop();
      onStack.delete(w);
      component.push(w);
    }
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

// One message per cycle found (none: directories lean one way at every depth).
export function folderCycleProblems(cruise) {
  const edges = [];
  for (const module of cruise.modules) {
    for (const dependency of module.dependencies ?? []) {
      if (dependency.coreModule || dependency.resolved.includes('node_modules')) continue;
      edges.push([module.source, dependency.resolved, dependency.resolved]);
    }
  }

  const maxDepth = Math.max(...cruise.modules.map((m) => m.source.split('/').length - 1));
  const problems = [];
  for (let depth = 1; depth <= maxDepth; depth += 1) {
    const graph = new Map();
    const why = new Map();
    const folders = new Set();
    for (const [from, to] of edges) {
      const { name: a, folder: aIsFolder } = nodeAt(from, depth);
      const { name: b, folder: bIsFolder } = nodeAt(to, depth);
      if (aIsFolder) folders.add(a);
      if (bIsFolder) folders.add(b);
      if (a === b) continue;
      if (!graph.has(a)) graph.set(a, new Set());
      graph.get(a).add(b);
      if (!why.has(`${a}>${b}`)) why.set(`${a}>${b}`, `${from} -> ${to}`);
    }
    for (const component of cycles(graph)) {
      // Files alone in a circle are a file cycle (no-file-cycles' business, which allows type-only ones).
      if (component.filter((node) => folders.has(node)).length < 2) continue;
      const inside = new Set(component);
      const examples = [...why.entries()]
        .filter(([key]) => {
          const [a, b] = key.split('>');
          return inside.has(a) && inside.has(b);
        })
        .map(([key, example]) => `    ${key.replace('>', ' -> ')}  (e.g. ${example})`);
      problems.push(
        `directories in a cycle at depth ${depth}: ${component.join(', ')}\n${examples.join('\n')}`,
      );
    }
  }
  return problems;
}

export const FOLDER_CYCLES_ADVICE =
  'Directories depend on each other one way at every depth (docs/architecture.md, "Dependencies"): move the shared piece down, or split the directory.';
