/**
 * A person's past conversations brought into memory (`homed import`: the daemon's
 * `memory.import`, or the command itself on a data dir no daemon holds). Every message becomes
 * the ordinary message event a chat turn writes, with the source's id as its `ref`, indexed by
 * the same code (ingestMessage), trusted like anything the person says themselves — so it is
 * recalled across conversations, searched and listed exactly like a chat of theirs.
 */
import type { ImportedConversation, MemoryImportResult } from "../protocol/import.ts";
import type { Store } from "../store/store.ts";
import { ingestMessage } from "./ingest.ts";
import type { Memory } from "./memory.ts";

/**
 * Append the messages of `conversations` that their conversation does not hold yet (by `ref`;
 * a ref repeated within the call counts once), all in one transaction: a call is in the log
 * whole or not at all. A message without a time is dated `now`. Each conversation is created
 * under `channel` when new, dated by its messages (Store.recordImport).
 */
export function importConversations(
  store: Store,
  memory: Memory,
  channel: string,
  conversations: readonly ImportedConversation[],
  now = Date.now(),
): MemoryImportResult {
  let added = 0;
  let already = 0;
  store.transaction(() => {
    for (const c of conversations) {
      const refs = store.conversationRefs(c.conv);
      const fresh = c.messages.filter((m) => {
        if (refs.has(m.ref)) return false;
        refs.add(m.ref);
        return true;
      });
      already += c.messages.length - fresh.length;
      if (fresh.length === 0) continue;
      let firstAt = Number.POSITIVE_INFINITY;
      let lastAt = Number.NEGATIVE_INFINITY;
      let exchanges = 0;
      for (const m of fresh) {
        const t = m.time ?? now;
        firstAt = Math.min(firstAt, t);
        lastAt = Math.max(lastAt, t);
        if (m.role === "user") exchanges++;
      }
      store.recordImport(c.conv, channel, { firstAt, lastAt, title: c.title, exchanges });
      for (const m of fresh) ingestMessage(store, memory, { ...m, conv: c.conv, time: m.time ?? now });
      added += fresh.length;
    }
  });
  return { added, already };
}
