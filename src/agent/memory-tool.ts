/**
 * `memory_search`: the model searches memory itself, over what its conversation may
 * see (src/memory/recall-scope.ts). Two calls, never one that takes and deletes:
 *   - Peek, `{query}`: candidates — event id, time, conversation, snippet, score — best first.
 *     Nothing moves; each candidate counts an access (Memory.touch).
 *   - Bring back, `{ids}`: those events, oldest first, in the tool's result, so the next model
 *     call of this turn has them. This conversation's cold turns that hold them are removed from
 *     L2 (back to L1, so later turns keep them); another conversation's events are quoted and
 *     left in their own layers, counting an access.
 * Risk class `read`: it changes nothing in the world, and it reads only what the turn's recall
 * scope already allows. Its results quote memory, so they are not indexed again.
 */
import * as v from "valibot";
import { kernelTool } from "./kernel-tool.ts";
import { capMark, type RunToolResult, type ToolDefinition } from "../protocol/agent.ts";
import { describeIssues } from "../protocol/jsonrpc.ts";
import type { FoundEvent, MemorySearch } from "../memory/memory-search.ts";
import { formatTime, snippetOf, sourceOf } from "../memory/memory-search.ts";
import { recallScope } from "../memory/recall-scope.ts";
import type { LocalTool, LocalToolContext } from "./tools.ts";
import { MEMORY_SEARCH } from "../memory/event-text.ts";

export { MEMORY_SEARCH };

/** Ids brought back per call at most: a handful of events, not a conversation dump. */
const MAX_IDS = 20;
/** A peek's snippet per candidate, in characters. */
const SNIPPET_CHARS = 240;
/** An event brought back is cut at this many characters. */
const BROUGHT_CHARS = 4000;

const MemorySearchArgs = v.strictObject({
  query: v.optional(
    v.pipe(
      v.string(),
      v.minLength(1),
      v.maxLength(500),
      v.description("Words to search memory for (peek: returns candidates, moves nothing)."),
    ),
  ),
  ids: v.optional(
    v.pipe(
      v.array(v.pipe(v.number(), v.integer(), v.minValue(1))),
      v.minLength(1),
      v.maxLength(MAX_IDS),
      v.description("Event ids from a peek: bring those events back into context, oldest first."),
    ),
  ),
  k: v.optional(
    v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(20), v.description("Candidates a peek returns.")),
  ),
});

export const MEMORY_SEARCH_TOOL: ToolDefinition = kernelTool({
  name: MEMORY_SEARCH,
  description:
    "Search long-term memory: what was said in this and (from trusted channels) the person's other conversations. " +
    'Call with {"query": "..."} to peek: returns candidates (id, time, conversation, snippet, score) and changes nothing. ' +
    'Then call with {"ids": [..]} (ids from a peek) to bring those events back into context, oldest first. ' +
    "Give query or ids, not both.",
  args: MemorySearchArgs,
  risk: "read",
  own: "the person's own memory; a quote of a marked conversation carries its mark",
  core: true,
  examples: [
    "what did I tell you about my sister",
    "do you remember the restaurant I liked",
    "when did I mention the trip",
    "我之前跟你说过什么",
  ],
});

export interface MemoryToolDeps {
  search: MemorySearch;
  touch(ids: readonly number[]): void;
  /** Remove from L2 this conversation's turns holding `ids`; returns the event ids moved. */
  restore(conv: string, ids: readonly number[]): number[];
  recallUntrusted(): boolean;
  /** Told what a bring-back call brought, for the memory page. */
  brought(turn: string, events: readonly FoundEvent[]): void;
  /**
   * How well the scenes the conversation's running turn is in claim a memory (src/memory/scenes.ts
   * TurnScenes.memoryOf): its memories rank first among those that match, as in cross recall.
   */
  sceneBoost?(conv: string): ((id: number, conv: string) => number) | undefined;
}

const fail = (content: string): RunToolResult => ({ content: `error: ${content}`, isError: true });
const cut = (text: string, n: number) => (text.length > n ? `${text.slice(0, n)}…` : text);
const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();
/** " · image block 12: a red bike…" for each block an event holds (what a picture shows, if said). */
const blocksNote = (f: FoundEvent) =>
  (f.blocks ?? []).map((b) => ` · ${b.kind} block ${b.id}${b.text ? `: ${cut(oneLine(b.text), 80)}` : ""}`).join("");

/** Quoting marked text (a page, what the model wrote with one in view) carries its mark on to the turn. */
function markOfFound(found: readonly FoundEvent[]): { mark?: string } {
  const f = found.find((e) => e.mark !== null);
  return f?.mark ? { mark: capMark(`memory of ${f.mark}`) } : {};
}

export function memoryTool(d: MemoryToolDeps): LocalTool {
  return {
    remember: false,
    run(raw: unknown, ctx: LocalToolContext): RunToolResult {
      const p = v.safeParse(MemorySearchArgs, raw);
      if (!p.success) return fail(`invalid arguments for ${MEMORY_SEARCH}: ${describeIssues(p.issues)}`);
      const { query, ids, k } = p.output;
      if ((query === undefined) === (ids === undefined))
        return fail(
          `give ${MEMORY_SEARCH} either "query" (to search) or "ids" (to bring events back from a search), not ${query === undefined ? "neither" : "both"}`,
        );
      const scope = recallScope(ctx.conv, ctx.untrusted, d.recallUntrusted());
      if (query !== undefined) {
        if (!query.trim()) return fail("query is empty");
        const found = d.search.find(scope, query, k ?? 8, {
          ...(ctx.turn ? { excludeTurn: ctx.turn } : {}),
          boost: d.sceneBoost?.(ctx.conv),
        });
        d.touch(found.map((f) => f.id));
        if (found.length === 0) return { content: `No memories match "${query}".`, isError: false };
        const lines = found.map(
          (f) =>
            `- id ${f.id} · ${formatTime(f.ts)} · ${sourceOf(f)}${f.conv === ctx.conv ? " (this conversation)" : ""} · score ${(f.score ?? 0).toFixed(2)} · ${f.role}: ${snippetOf(oneLine(f.text), query, SNIPPET_CHARS)}${blocksNote(f)}`,
        );
        return {
          content: `${found.length} memories match "${query}", best first. To bring some into context, call ${MEMORY_SEARCH} with {"ids": [...]}.\n${lines.join("\n")}`,
          isError: false,
          ...markOfFound(found),
        };
      }
      const wanted = [...new Set(ids)];
      const { events, refused } = d.search.fetch(scope, wanted);
      if (refused.length > 0)
        return fail(
          `no event this conversation may see has id ${refused.join(", ")} (ids come from a ${MEMORY_SEARCH} peek); nothing was brought back`,
        );
      const moved = new Set(
        d.restore(
          ctx.conv,
          events.filter((e) => e.conv === ctx.conv).map((e) => e.id),
        ),
      );
      d.touch(events.filter((e) => !moved.has(e.id)).map((e) => e.id));
      if (ctx.turn) d.brought(ctx.turn, events);
      const body = events.map(
        (e) =>
          `[id ${e.id} · ${formatTime(e.ts)} · ${sourceOf(e)}${e.conv === ctx.conv ? " (this conversation)" : ""}] ${e.role}: ${cut(e.text, BROUGHT_CHARS)}`,
      );
      return {
        content: `Brought back ${events.length} event${events.length === 1 ? "" : "s"} from memory, oldest first:\n${body.join("\n")}`,
        isError: false,
        ...markOfFound(events),
      };
    },
  };
}
