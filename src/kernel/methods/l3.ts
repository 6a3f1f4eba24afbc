/**
 * l3/* (src/protocol/l3.ts) for built-in plugins: the person's stable graph says what they told
 * their agent, so only the web UI may read or change it, as with memory search. Lists apply
 * forgetting as recall does (a fact whose only sources are forgotten is not shown); hidden and
 * superseded facts are shown only when asked for.
 */
import { HomedError } from "../../protocol/errors.ts";
import {
  L3CorrectParams,
  L3DeleteParams,
  L3FactsParams,
  L3HistoryParams,
  L3Method,
  L3RecallParams,
  type FactView,
  type L3DistillResult,
  type L3FactsResult,
  type L3HistoryResult,
  type L3RecallResult,
} from "../../protocol/l3.ts";
import { parseParams } from "../../protocol/parse-params.ts";
import type { Fact } from "../../store/l3-graph.ts";
import type { KernelServices } from "../kernel-services.ts";

const OWNER = { kind: "person", includeUntrusted: true } as const;

export function l3Methods(
  k: Pick<KernelServices, "l3">,
  builtinOnly: (plugin: string, what: string) => void,
): Record<string, (params: unknown, plugin: string) => unknown> {
  const { graph, recall } = k.l3;
  const shown = (facts: Fact[]): FactView[] => {
    const bounds = recall.forgottenBounds();
    return facts.filter((f) => recall.visible(f, OWNER, bounds) !== null);
  };
  return {
    [L3Method.Facts]: (params, plugin): L3FactsResult => {
      builtinOnly(plugin, "reading the knowledge graph");
      const p = parseParams(L3FactsParams, params);
      return { facts: shown(graph.list(p)), counts: graph.count() };
    },
    [L3Method.History]: (params, plugin): L3HistoryResult => {
      builtinOnly(plugin, "reading a fact's history");
      const { id } = parseParams(L3HistoryParams, params);
      const facts = graph.history(id);
      if (facts.length === 0) throw new HomedError("not_found", `there is no fact ${id}`, { id });
      // The log of what is shown only: a fact hidden with its forgotten sources leaves no trace here either.
      const visible = shown(facts);
      return { facts: visible, log: visible.flatMap((f) => graph.logOf(f.id)).sort((a, b) => a.ts - b.ts) };
    },
    [L3Method.Correct]: (params, plugin): FactView => {
      builtinOnly(plugin, "correcting a fact");
      const p = parseParams(L3CorrectParams, params);
      const r = graph.correct(p.id, p.object, plugin);
      const f = graph.get(r.id);
      if (!f) throw new HomedError("store", "the corrected fact was not stored");
      return f;
    },
    [L3Method.Delete]: (params, plugin) => {
      builtinOnly(plugin, "deleting a fact");
      const p = parseParams(L3DeleteParams, params);
      graph.hide(p.id, plugin, p.reason);
      return { hidden: true };
    },
    [L3Method.Recall]: (params, plugin): L3RecallResult => {
      builtinOnly(plugin, "previewing L3 recall");
      const { query } = parseParams(L3RecallParams, params);
      const note = recall.note({
        conv: "",
        input: query,
        scope: { kind: "person", includeUntrusted: false },
        budgetTokens: 100_000,
      });
      return { note: note?.content ?? null, facts: note?.facts ?? [] };
    },
    [L3Method.Distill]: async (_params, plugin): Promise<L3DistillResult> => {
      builtinOnly(plugin, "running distillation");
      return await k.l3.runNow();
    },
  };
}
