/**
 * config.toml's [channels.qq], the QQ channel over OneBot v11 (plugins/qq): its schema, which the
 * daemon checks config.toml with and the plugin checks what config/get "channels" answers with.
 * Closed by default: `enabled = false` keeps the plugin from starting at all (its manifest's
 * enabled_by), and a listener beyond loopback needs an access token. Template:
 * src/kernel/qq-config.ts.
 */
import * as v from "valibot";
import { parseListen } from "./listen.ts";

const int = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  v.pipe(v.number("must be a number"), v.integer("must be an integer"), v.minValue(min), v.maxValue(max));
const bool = v.boolean("must be true or false");
/** A QQ number (a user or a group). */
const QqId = v.union(
  [
    v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
    // HOMED_CHANNELS_QQ_OWNERS=123,456 gives strings.
    v.pipe(v.string(), v.regex(/^[1-9]\d{0,15}$/), v.transform(Number)),
  ],
  "must be QQ numbers",
);

export const QqConfig = v.strictObject({
  enabled: v.optional(bool, false),
  /**
   * ws: homed connects to the OneBot implementation's WebSocket server (`url`); reverse: the
   * implementation connects to homed's WebSocket server at `listen`; http: homed calls its HTTP
   * API at `url` and receives its HTTP-POST event reports at `listen`.
   */
  mode: v.optional(v.picklist(["ws", "reverse", "http"], "must be ws, reverse or http"), "ws"),
  url: v.optional(
    v.pipe(
      v.string(),
      v.check((s) => /^(wss?|https?):\/\/\S+$/.test(s), "must be a ws(s):// or http(s):// URL"),
    ),
    "ws://127.0.0.1:3001",
  ),
  listen: v.optional(
    v.pipe(
      v.string(),
      v.check((s) => parseListen(s) !== null, "must be HOST:PORT"),
    ),
    "127.0.0.1:6700",
  ),
  /** OneBot's access_token: sent as `Authorization: Bearer`, required of whoever connects to homed. */
  access_token: v.optional(v.string(), ""),
  /** HMAC-SHA1 key of HTTP-POST reports' X-Signature; empty: the access token is the key (as NapCat does). */
  secret: v.optional(v.string(), ""),
  /** QQ numbers of the owner: their private messages are trusted and may answer approvals. */
  owners: v.optional(v.array(QqId), []),
  /** Private messages from anyone but the owners: answered as untrusted input, or ignored. */
  strangers: v.optional(v.picklist(["untrusted", "ignore"], "must be untrusted or ignore"), "untrusted"),
  /** Groups answered (empty: every group the account is in). */
  groups: v.optional(v.array(QqId), []),
  /** In groups homed answers when @-mentioned, or when a message starts with one of these words. */
  keywords: v.optional(v.array(v.pipe(v.string(), v.minLength(1, "must not be empty"))), []),
  /** Turns per group, and per stranger's private chat, per minute; more are told to wait once. */
  group_turns_per_minute: v.optional(int(1, 10_000), 6),
  /** A reply longer than this is sent as several messages (characters). */
  max_message_chars: v.optional(int(100, 100_000), 1500),
  /** Largest image taken from a message (KiB). */
  max_image_kb: v.optional(int(1, 1_048_576), 10_240),
  /** Pause before reconnecting to a lost WebSocket (milliseconds). */
  reconnect_ms: v.optional(int(50, 600_000), 3000),
});
export type QqConfig = v.InferOutput<typeof QqConfig>;
