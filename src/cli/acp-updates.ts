/**
 * homed's turn events and transcripts as ACP `session/update`s: the reply as
 * agent_message_chunk, a tool call as tool_call (pending until it runs), its result as
 * tool_call_update (completed or failed), notices as agent_thought_chunk; a loaded session's
 * history replays the same way, the person's messages as user_message_chunk. Pure functions:
 * acp-bridge.ts sends what they return.
 */
import type { TranscriptItem } from "../protocol/channel.ts";
import type { ChatEvent } from "../client/chat-connection.ts";

/** One `session/update` body (its `update` field). */
export type AcpUpdate = Record<string, unknown> & { sessionUpdate: string };

const text = (t: string) => ({ type: "text", text: t });

/** How long a tool call's title may run: the editor shows it on one line. */
const TITLE_CHARS = 120;

/** The line an editor shows for a call: the tool and its arguments, shortened. */
export function toolTitle(name: string, args: string): string {
  const one = args.replace(/\s+/g, " ").trim();
  const full = one && one !== "{}" ? `${name} ${one}` : name;
  return full.length > TITLE_CHARS ? `${full.slice(0, TITLE_CHARS - 1)}…` : full;
}

/** The ACP kind of a tool (the editor's icon), guessed from homed's tool name. */
export function toolKind(name: string): string {
  const n = name.toLowerCase();
  if (/(^|_)(rm|delete|remove|unlink)(_|$)/.test(n)) return "delete";
  if (/(^|_)(mv|move|rename)(_|$)/.test(n)) return "move";
  if (/(^|_)(write|edit|patch|append|create|save)(_|$)/.test(n)) return "edit";
  if (/(^|_)(search|find|grep|recall|query)(_|$)/.test(n)) return "search";
  if (/(^|_)(fetch|http|web|browse|download|url)(_|$)/.test(n)) return "fetch";
  if (/(^|_)(run|exec|shell|code|bash|command)(_|$)/.test(n)) return "execute";
  if (/(^|_)(read|get|list|cat|show|view|stat)(_|$)/.test(n)) return "read";
  return "other";
}

/** The arguments as the model wrote them, as JSON when they parse. */
function rawInput(args: string): unknown {
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

export function toolCallUpdate(callId: string, name: string, args: string, status: string): AcpUpdate {
  return {
    sessionUpdate: "tool_call",
    toolCallId: callId,
    title: toolTitle(name, args),
    kind: toolKind(name),
    status,
    rawInput: rawInput(args),
  };
}

/** A tool's result: homed's "ok" is completed, every other status (error, denied…) failed. */
export function toolResultUpdate(callId: string, status: string, content: string): AcpUpdate {
  return {
    sessionUpdate: "tool_call_update",
    toolCallId: callId,
    status: status === "ok" ? "completed" : "failed",
    content: content ? [{ type: "content", content: text(content) }] : [],
    ...(status === "ok" ? {} : { rawOutput: { status } }),
  };
}

/**
 * Turns one live turn's events into updates. A plugin may replace the reply after it streamed
 * (text-replace); ACP cannot take chunks back, so the new text starts a new message (a new
 * messageId), which editors show as a message of its own.
 */
export class TurnUpdates {
  private message = 0;
  private afterTools = false;

  /** `turnId` names the turn until the daemon's turn-start tells its own id. */
  constructor(private turnId: string) {}

  private messageId(): string {
    return `${this.turnId}-${this.message}`;
  }

  /**
   * The ACP id of a tool call. A model's call ids are unique within one reply only (some number
   * them call_0, call_1… every time), and ACP wants them unique in the session: the turn's id
   * goes in front.
   */
  toolCallId(callId: string): string {
    return `${this.turnId}/${callId}`;
  }

  updates(e: ChatEvent): AcpUpdate[] {
    switch (e.type) {
      case "turn-start":
        if (e.turn) this.turnId = e.turn;
        return [];
      case "text-delta":
        if (this.afterTools) {
          // A new model call after tool results: its text is a message after the cards.
          this.afterTools = false;
          this.message++;
        }
        return e.text
          ? [{ sessionUpdate: "agent_message_chunk", content: text(e.text), messageId: this.messageId() }]
          : [];
      case "text-replace":
        this.message++;
        return e.text
          ? [{ sessionUpdate: "agent_message_chunk", content: text(e.text), messageId: this.messageId() }]
          : [];
      case "tool-call":
        return [toolCallUpdate(this.toolCallId(e.callId), e.name, e.arguments, "pending")];
      case "tool-result":
        this.afterTools = true;
        return [toolResultUpdate(this.toolCallId(e.callId), e.status, e.content)];
      case "notice":
        return [{ sessionUpdate: "agent_thought_chunk", content: text(`[${e.text}]`) }];
      default:
        return [];
    }
  }
}

/** A conversation's transcript as the updates that show it again (session/load). */
export function replayUpdates(items: readonly TranscriptItem[]): AcpUpdate[] {
  const results = new Map<string, TranscriptItem>();
  for (const it of items) if (it.kind === "tool-result" && it.callId) results.set(it.callId, it);
  const out: AcpUpdate[] = [];
  for (const it of items) {
    const messageId = `e${it.id}`;
    if (it.kind === "user") out.push({ sessionUpdate: "user_message_chunk", content: text(it.text), messageId });
    else if (it.kind === "assistant" && it.text)
      out.push({ sessionUpdate: "agent_message_chunk", content: text(it.text), messageId });
    else if (it.kind === "tool-call" && it.callId) {
      // Unique in the session however the model numbered its calls (see TurnUpdates.toolCallId).
      const id = `e${it.id}/${it.callId}`;
      const r = results.get(it.callId);
      out.push(toolCallUpdate(id, it.name ?? "tool", it.text, "pending"));
      // A call that never got a result (the turn stopped first) did not run.
      out.push(r ? toolResultUpdate(id, r.status ?? "", r.text) : toolResultUpdate(id, "not run", ""));
    }
  }
  return out;
}
