/**
 * [channels.qq], the QQ channel over OneBot v11: the kernel checks config.toml with this schema
 * and the plugin checks what config/get answers with it. Closed by default: `enabled = false`
 * keeps the plugin from starting at all (its manifest's enabled_by), and a listener beyond
 * loopback needs an access token. A change restarts the plugin with it.
 */
import * as v from "valibot";
import { parseListen } from "../../src/shared/listen.ts";
import { defineSettings, setting, wholeNumber } from "../../src/protocol/plugin-settings.ts";

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
  enabled: setting(bool, false, "Off until you turn it on."),
  mode: setting(
    v.picklist(["ws", "reverse", "http"], "must be ws, reverse or http"),
    "ws",
    `ws: homed connects to the implementation's WebSocket server at url. reverse: the
implementation connects to homed at ws://listen/. http: homed calls its HTTP API at url and
receives its HTTP-POST reports at http://listen/.`,
  ),
  url: setting(
    v.pipe(
      v.string(),
      v.check((s) => /^(wss?|https?):\/\/\S+$/.test(s), "must be a ws(s):// or http(s):// URL"),
    ),
    "ws://127.0.0.1:3001",
    "The OneBot implementation's WebSocket server (ws) or HTTP API (http).",
  ),
  listen: setting(
    v.pipe(
      v.string(),
      v.check((s) => parseListen(s) !== null, "must be HOST:PORT"),
    ),
    "127.0.0.1:6700",
    "Where homed listens for the implementation (reverse, http), HOST:PORT.",
  ),
  access_token: setting(
    v.string(),
    "",
    `The access token both sides share (Authorization: Bearer). Required when listen is not a
loopback address.`,
  ),
  secret: setting(v.string(), "", "Key of the X-Signature HMAC on HTTP-POST reports; empty: the access token."),
  owners: setting(
    v.array(QqId),
    [],
    "Your QQ number(s): your private messages are trusted, and you answer approvals with y or n.",
  ),
  strangers: setting(
    v.picklist(["untrusted", "ignore"], "must be untrusted or ignore"),
    "untrusted",
    `Private messages from others: "untrusted" (answered, never approving a tool, recalling only
their own conversation) or "ignore".`,
  ),
  groups: setting(
    v.array(QqId),
    [],
    `Groups to answer in (empty: all). Group messages are always untrusted; homed answers when
@-mentioned or when a message starts with one of the keywords.`,
  ),
  keywords: setting(
    v.array(v.pipe(v.string(), v.minLength(1, "must not be empty"))),
    [],
    "Words that make homed answer a group message that starts with one of them.",
  ),
  group_turns_per_minute: setting(
    wholeNumber(1, 10_000),
    6,
    "Turns a minute per group (and per stranger's private chat); over it homed says so once.",
  ),
  max_message_chars: setting(
    wholeNumber(100, 100_000),
    1500,
    "A longer reply is sent as several messages (characters).",
  ),
  max_image_kb: setting(wholeNumber(1, 1_048_576), 10_240, "Largest image taken from a message (KiB)."),
  reconnect_ms: setting(
    wholeNumber(50, 600_000),
    3000,
    "Pause before reconnecting to a lost WebSocket (milliseconds).",
  ),
});
export type QqConfig = v.InferOutput<typeof QqConfig>;

export const SETTINGS = defineSettings({
  doc: "QQ over OneBot v11 (NapCat, Lagrange.OneBot, LLOneBot...).",
  schema: QqConfig,
  reload: "plugin-restart",
  builtinOnly: true,
});
