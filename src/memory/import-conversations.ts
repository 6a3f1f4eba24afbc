/**
 * A person's past conversations brought into memory (`homed import`: the daemon's
 * `memory.import`, or the command itself on a data dir no daemon holds). Every message becomes
 * the ordinary message event a chat turn writes (a tool the assistant called, the call and
 * result events a turn writes), with the source's id as its `ref`, indexed by
 * the same code (messageEvent, Memory.add), trusted like anything the person says themselves —
 * so it is recalled across conversations, searched and listed exactly like a chat of theirs.
 *
 * An imported exchange is also a turn of its conversation, and a cold one (docs/memory.md,
 * "Importing past chats"): no context holds it when it arrives, so it is in L2, and it went
 * cold when it was said. Its events' layer state (event_state, never the log) is dated by their
 * original time, so an old chat is as idle as its age says and the distillation (L3) takes it
 * once it has stayed unused for the idle time (72 hours) — counted from when it was said, not
 * from the import. If the person continues the conversation, its turns come back into context
 * as any cold turn does.
 */
import type { ImportedConversation, ImportedMessage, MemoryImportResult } from "../protocol/import.ts";
import { eventOf } from "../protocol/event-bodies.ts";
import type { Store } from "../store/store.ts";
import type { AppendEvent } from "../store/rows.ts";
import { messageEvent } from "./ingest.ts";
import type { Memory } from "./memory.ts";

/** The cold layer (src/memory/memory.ts): turns that no context holds. */
const COLD = 2 as const;

/**
 * The turn each of `messages` belongs to, in order: a person's message starts one, and the
 * assistant's reply that follows joins it; an assistant message with no person's message before
 * it in its turn starts one of its own; a tool the assistant called joins the turn it is in, before
 * its reply (after a reply, it starts the next turn). One reply per turn, as a chat turn has: a turn's messages
 * are rebuilt from its events with one reply (src/memory/turn-log.ts). A turn is named after the
 * `ref` of its first message, unique within the conversation (refs are), and apart from every
 * chat turn's id (a UUID).
 */
function importedTurns(messages: readonly ImportedMessage[]): string[] {
  const out: string[] = [];
  let turn = "";
  let replied = true;
  for (const m of messages) {
    if (m.role === "user" || replied) {
      turn = `import:${m.ref}`;
      replied = false;
    }
    if (m.role === "assistant") replied = true;
    out.push(turn);
  }
  return out;
}

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
      const turns = importedTurns(fresh);
      for (const [i, m] of fresh.entries()) {
        const time = m.time ?? now;
        const turn = turns[i];
        // Cold since it was said: the state's times are the original one (the log is not touched).
        const append = (ev: Omit<AppendEvent, "conv" | "ts" | "layer">) => {
          const r = store.append({ ...ev, conv: c.conv, ts: time, layer: COLD });
          memory.addLogged({ id: r.id, ts: r.ts, conv: c.conv, kind: ev.kind, actor: ev.actor, body: r.body });
        };
        if (m.role === "tool" && m.tool) {
          // As a chat turn logs a call: the call, then its result (memory indexes the result). A
          // marked result is untrusted, as a live one is; the model never reads either again as
          // a tool message (no model output of the turn asked for it, src/memory/turn-log.ts),
          // only as what memory quotes.
          const { name, arguments: args, status } = m.tool;
          const callId = `import:${m.ref}`;
          append({
            actor: "agent",
            ...eventOf("tool-call", { turn, callId, name, risk: null, arguments: args, origin: "import" }),
          });
          append({
            actor: "import",
            untrusted: m.mark !== undefined,
            mark: m.mark ?? null,
            ...eventOf("tool-result", { turn, callId, name, status: status ?? "ok", content: m.text }),
          });
        } else {
          const { kind, body, actor } = messageEvent({
            ...m,
            role: m.role === "user" ? "user" : "assistant",
            conv: c.conv,
            time,
            turn,
          });
          append({ actor, kind, body, mark: m.mark ?? null });
        }
      }
      added += fresh.length;
    }
  });
  return { added, already };
}
