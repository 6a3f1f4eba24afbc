/**
 * homed's turn events and transcripts as ACP `session/update`s: the reply as
 * agent_message_chunk, a tool call as tool_call (pending until it runs), its result as
 * tool_call_update (completed or failed), notices as agent_thought_chunk; a loaded session's
 * history replays the same way, the person's messages as user_message_chunk. Pure functions:
 * acp-bridge.ts sends what they return.
 */
import type { TranscriptItem } from "../protocol/channel.ts";
import type { ChatEvent } from "../client/chat-connection.ts";
import { knownEvent } from "../protocol/turn-stream.ts";

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
 * Folds a turn's events into updates, live or from history (one fold for both). A plugin may
 * replace the reply after it streamed (text-replace); ACP cannot take chunks back, so the new
 * text starts a new message (a new messageId), which editors show as a message of its own. The
 * person's message is the turn-start's, sent as user_message_chunk unless this client sent it
 * itself (`sent`); the turn's `done` completes the reply (its whole text when nothing streamed,
 * as in history) and says that a call which never got a result did not run.
 */
export class TurnUpdates {
  private message = 0;
  private afterTools = false;
  /** The reply's text sent in the current message. */
  private streamed = "";
  /** Calls shown as pending, by their ACP id, until their result. */
  private readonly pending = new Set<string>();

  /** `turnId` names the turn until the daemon's turn-start tells its own id. */
  constructor(
    private turnId: string,
    private sent: string | null = null,
  ) {}

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

  private chunk(t: string): AcpUpdate[] {
    this.streamed += t;
    return t ? [{ sessionUpdate: "agent_message_chunk", content: text(t), messageId: this.messageId() }] : [];
  }

  private newMessage(): void {
    this.message++;
    this.streamed = "";
  }

  updates(e: ChatEvent): AcpUpdate[] {
    switch (e.type) {
      case "turn-start": {
        if (e.turn) this.turnId = e.turn;
        [this.message, this.streamed, this.afterTools] = [0, "", false];
        const words = e.text ?? "";
        const mine = this.sent !== null && this.sent === words;
        this.sent = null;
        return words && !mine
          ? [{ sessionUpdate: "user_message_chunk", content: text(words), messageId: `${this.turnId}-user` }]
          : [];
      }
      case "text-delta":
        if (this.afterTools) {
          // A new model call after tool results: its text is a message after the cards.
          this.afterTools = false;
          this.newMessage();
        }
        return this.chunk(e.text);
      case "text-replace":
        this.newMessage();
        return this.chunk(e.text);
      case "tool-call": {
        const id = this.toolCallId(e.callId);
        this.pending.add(id);
        return [toolCallUpdate(id, e.name, e.arguments, "pending")];
      }
      case "tool-result": {
        const id = this.toolCallId(e.callId);
        this.afterTools = true;
        this.pending.delete(id);
        return [toolResultUpdate(id, e.status, e.content)];
      }
      case "notice":
        return [{ sessionUpdate: "agent_thought_chunk", content: text(`[${e.text}]`) }];
      case "done": {
        // A call that never got a result (the turn stopped first) did not run.
        const out = [...this.pending].map((id) => toolResultUpdate(id, "not run", ""));
        this.pending.clear();
        const final = e.result.text;
        if (this.afterTools) this.newMessage();
        this.afterTools = false;
        if (final && final !== this.streamed) {
          if (final.startsWith(this.streamed)) out.push(...this.chunk(final.slice(this.streamed.length)));
          else {
            if (this.streamed) this.newMessage();
            out.push(...this.chunk(final));
          }
        }
        return out;
      }
      default:
        return [];
    }
  }
}

/** A conversation's transcript as the updates that show it again (session/load): its events folded as live ones are. */
export function replayUpdates(items: readonly TranscriptItem[]): AcpUpdate[] {
  const fold = new TurnUpdates("history");
  return items.flatMap((it) => {
    const e = knownEvent(it.event);
    return e ? fold.updates(e) : [];
  });
}
