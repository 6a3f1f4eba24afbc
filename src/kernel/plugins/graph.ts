/**
 * The facility graph of a set of plugins: who provides what, who requires what, in which order
 * they can start. Used at build time (scripts/gen-plugins.ts fails the build on a cycle or a
 * missing facility, naming it) and at run time for external plugins (which are then blocked,
 * not fatal).
 */
import type { PluginManifest } from "../../protocol/manifest.ts";

/** What the kernel itself provides, ready before any plugin starts. */
export const KERNEL_FACILITIES = ["kernel.store", "kernel.control", "kernel.agent", "kernel.llm"] as const;

export interface GraphProblem {
  kind: "missing" | "cycle" | "duplicate";
  plugin: string;
  message: string;
}

export interface GraphResult {
  /** Plugin names in an order where every provider comes before its dependents. */
  order: string[];
  problems: GraphProblem[];
}

type GraphNode = Pick<PluginManifest, "name" | "provides" | "requires">;

export function resolveGraph(
  plugins: readonly GraphNode[],
  kernelFacilities: readonly string[] = KERNEL_FACILITIES,
): GraphResult {
  const problems: GraphProblem[] = [];
  const provider = new Map<string, string>();
  for (const f of kernelFacilities) provider.set(f, "kernel");
  const bad = new Set<string>();
  for (const p of plugins) {
    for (const f of p.provides) {
      const other = provider.get(f);
      if (other && other !== p.name) {
        problems.push({
          kind: "duplicate",
          plugin: p.name,
          message: `${p.name} provides ${f}, which ${other} already provides`,
        });
        bad.add(p.name);
      } else provider.set(f, p.name);
    }
  }
  for (const p of plugins) {
    for (const f of p.requires) {
      if (!provider.has(f)) {
        problems.push({ kind: "missing", plugin: p.name, message: `${p.name} requires ${f}, which nothing provides` });
        bad.add(p.name);
      }
    }
  }
  // Depth-first topological sort; a back edge is a cycle, reported with its path.
  const byName = new Map(plugins.map((p) => [p.name, p]));
  const state = new Map<string, "visiting" | "done">();
  const order: string[] = [];
  const visit = (name: string, path: string[]): boolean => {
    const s = state.get(name);
    if (s === "done") return !bad.has(name);
    if (s === "visiting") {
      const cycle = [...path.slice(path.indexOf(name)), name];
      problems.push({ kind: "cycle", plugin: name, message: `dependency cycle: ${cycle.join(" -> ")}` });
      for (const n of cycle) bad.add(n);
      return false;
    }
    state.set(name, "visiting");
    const p = byName.get(name) as GraphNode;
    let ok = !bad.has(name);
    for (const f of [...p.requires].sort()) {
      const dep = provider.get(f);
      if (!dep || dep === "kernel" || dep === name) continue;
      if (!visit(dep, [...path, name])) {
        ok = false;
        if (!bad.has(name)) {
          problems.push({
            kind: "missing",
            plugin: name,
            message: `${name} requires ${f}, whose provider ${dep} cannot start`,
          });
          bad.add(name);
        }
      }
    }
    state.set(name, "done");
    if (ok) order.push(name);
    return ok;
  };
  for (const p of [...plugins].sort((a, b) => a.name.localeCompare(b.name))) visit(p.name, []);
  return { order, problems };
}
