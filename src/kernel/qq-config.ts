/**
 * The [channels.qq] part of `homed initconfig`'s template (the schema is src/protocol/qq-config.ts,
 * shared with the plugin). It parses to exactly the defaults (test/kernel/config.test.ts).
 */
export { QqConfig } from "../protocol/qq-config.ts";

export const QQ_TEMPLATE = `[channels.qq]
# QQ over OneBot v11 (NapCat, Lagrange.OneBot, LLOneBot...). Off until you turn it on.
enabled = false
# ws: homed connects to the implementation's WebSocket server at url. reverse: the
# implementation connects to homed at ws://listen/. http: homed calls its HTTP API at url and
# receives its HTTP-POST reports at http://listen/.
mode = "ws"
url = "ws://127.0.0.1:3001"
listen = "127.0.0.1:6700"
# The access token both sides share (Authorization: Bearer). Required when listen is not a
# loopback address.
access_token = ""
# Key of the X-Signature HMAC on HTTP-POST reports; empty: the access token.
secret = ""
# Your QQ number(s): your private messages are trusted, and you answer approvals with y or n.
owners = []
# Private messages from others: "untrusted" (answered, never approving a tool, recalling only
# their own conversation) or "ignore".
strangers = "untrusted"
# Groups to answer in (empty: all). Group messages are always untrusted; homed answers when
# @-mentioned or when a message starts with one of the keywords.
groups = []
keywords = []
# Turns a minute per group (and per stranger's private chat); over it homed says so once.
group_turns_per_minute = 6
max_message_chars = 1500
max_image_kb = 10240
reconnect_ms = 3000
`;
