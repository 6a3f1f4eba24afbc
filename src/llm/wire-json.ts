/**
 * Request bodies written from each message's JSON, made once per message object. A turn's
 * history is the same message objects from turn to turn (src/memory/turn-log.ts keeps them), so
 * at 10k events of history the ~6,700 messages of a 128k window were mapped to the wire and
 * serialised again on every model call. Only frozen messages are kept: the turn log freezes what
 * it hands out, so a kept JSON cannot go stale; anything else (the system prompt, the input, a
 * message with this request's image bytes) is written anew each time.
 */
import type { ChatMessage } from "./types.ts";

/** A provider's cache: message object → its JSON on that provider's wire. */
export type WireCache = WeakMap<ChatMessage, string>;

/** `m` on the wire as JSON: kept for a frozen message, else made now. */
export function wireJson(cache: WireCache, m: ChatMessage, toWire: (m: ChatMessage) => unknown): string {
  const cacheable = Object.isFrozen(m);
  if (cacheable) {
    const known = cache.get(m);
    if (known !== undefined) return known;
  }
  const json = JSON.stringify(toWire(m));
  if (cacheable) cache.set(m, json);
  return json;
}

/**
 * The JSON of `head` with one more property, `key`, last, whose value is the array of the
 * already-serialised `items` (BODY_ORDER in http.ts: the long part of a body goes last).
 */
export function withJsonArray(head: Record<string, unknown>, key: string, items: readonly string[]): string {
  const open = JSON.stringify(head).slice(0, -1);
  return `${open}${open.length > 1 ? "," : ""}${JSON.stringify(key)}:[${items.join(",")}]}`;
}
