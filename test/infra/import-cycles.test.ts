// No circle of imports anywhere in src/ or simulators/: a module never reaches itself through the static
// imports of others (type-only imports count too; a lazy `import()` does not, it is how commands load late).
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));

/** Each source file's relative static imports (`import … from`, `export … from`, `import "…"`), resolved. */
function importGraph(folders: string[]): Map<string, string[]> {
  const files = folders.flatMap((folder) =>
    readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && /\.tsx?$/.test(e.name))
      .map((e) => join(e.parentPath, e.name)),
  );
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const source = readFileSync(file, "utf8");
    const targets = [...source.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+"(\.[^"]+)"|^import\s+"(\.[^"]+)"/gm)]
      .map((m) => resolve(dirname(file), (m[1] ?? m[2])!))
      .filter((target) => known.has(target));
    graph.set(file, targets);
  }
  return graph;
}

/** The strongly connected components with more than one module (Tarjan): each is a circle of imports. */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe("import cycles", () => {
  it("finds a circle of three modules, and none in a chain", () => {
    expect(cycles(new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["a"]]]))).toEqual([["a", "b", "c"]]);
    expect(cycles(new Map([["a", ["b"]], ["b", ["c"]], ["c", []]]))).toEqual([]);
  });

  it("has none in src/ and simulators/", () => {
    const graph = importGraph(["src", "simulators"]);
    expect(graph.size).toBeGreaterThan(200);
    expect(cycles(graph).map((c) => c.map((f) => relative(root, f)).join(" → "))).toEqual([]);
  });
});
