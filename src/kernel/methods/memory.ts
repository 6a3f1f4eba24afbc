/**
 * memory/search and memory/add (src/protocol/channel.ts). A person's whole memory: the built-in
 * web UI may search it and add to it, an installed plugin may not.
 */
import { ChannelMethod, MemoryAddParams, type MemoryHit, MemorySearchParams } from "../../protocol/channel.ts";
import { eventOf } from "../../protocol/event-bodies.ts";
import { parseParams } from "../../protocol/parse-params.ts";
import { snippetOf } from "../../memory/memory-search.ts";
import type { KernelServices } from "../kernel-services.ts";
import type { BuiltinOnly, ChannelMethodGroup } from "./channel-group.ts";

/** What a search result shows of an event's text. */
const SNIPPET_CHARS = 300;

/** The memory methods: built-in plugins only. */
export function memoryMethods(k: KernelServices, builtinOnly: BuiltinOnly): ChannelMethodGroup {
  return {
    [ChannelMethod.MemorySearch]: (params, plugin): MemoryHit[] => {
      builtinOnly(plugin, "searching memory");
      const p = parseParams(MemorySearchParams, params);
      return k.agent
        .searchMemory(p.query, p.k)
        .map((f) => ({ ...f, text: snippetOf(f.text, p.query, SNIPPET_CHARS), blocks: f.blocks ?? [] }));
    },
    // Logged in the plugin's own conversation `<plugin>:<key>` and added to memory at once.
    [ChannelMethod.MemoryAdd]: (params, plugin) => {
      builtinOnly(plugin, "adding to memory");
      const p = parseParams(MemoryAddParams, params);
      const conv = `${plugin}:${p.key}`;
      const r = k.store.append({
        conv,
        actor: plugin,
        untrusted: p.untrusted,
        ...eventOf("plugin-text", { key: p.key, text: p.text }),
      });
      k.memory.add(r.id);
      return { id: r.id, conv };
    },
  };
}
