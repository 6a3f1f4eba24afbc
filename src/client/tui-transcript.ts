/**
 * What waiter's TUI shows of one conversation: its turns' events folded in one way, whether they
 * come from the transcript homed keeps or from the live turn — the person's message, the reply
 * as it streams, each tool call as a card that gathers its approval question, the answer and the
 * result, notices, and the summary line `homed chat` prints (turnSummary). `lines(width)` lays
 * it out; the screen shows the last ones that fit.
 */
import type { TranscriptItem } from "../protocol/channel.ts";
import { knownEvent } from "../protocol/turn-stream.ts";
import type { ContextFigures } from "../protocol/context-figures.ts";
import type { TurnResultView } from "../protocol/control.ts";
import type { ApprovalQuestion, ChatEvent } from "./chat-connection.ts";
import { turnSummary } from "./chat-session.ts";
import { cells, fit, style, wrap } from "./tui-text.ts";

/** One screen line: plain text, and how to colour it once it is cut to the width. */
export interface Line {
  text: string;
  paint?: (s: string) => string;
}

type Answer =
  | "approved"
  | "approved for this conversation"
  | "denied"
  | "always"
  | "answered elsewhere: approved"
  | "answered elsewhere: denied";

interface ToolCard {
  kind: "tool";
  callId: string;
  name: string;
  args: string;
  asked?: { note?: string; answer?: Answer };
  result?: { status: string; content: string; images: number };
}

type Block =
  /** `sent`: shown when this client sent it, before its turn started. */
  | { kind: "user"; text: string; sent?: boolean }
  | { kind: "reply"; text: string; open: boolean }
  | ToolCard
  | { kind: "notice"; text: string; tone: "info" | "bad" };

/** Most lines of a tool's arguments or result a card shows (the web UI has the rest). */
const CARD_LINES = 4;

export class Transcript {
  private blocks: Block[] = [];
  private readonly cache = new WeakMap<Block, { key: string; lines: Line[] }>();

  /** Start over from what homed has of the conversation: its events, folded as live ones are. */
  load(items: readonly TranscriptItem[]): void {
    this.blocks = [];
    for (const it of items) {
      const e = knownEvent(it.event);
      if (e) this.event(e);
    }
  }

  /** What memory brought, said only when it is more than the conversation's recent turns. */
  private context(c: ContextFigures): void {
    const from = [
      ...(c.recalled ? ["recalled older turns"] : []),
      ...(c.across ? ["quoted your other conversations"] : []),
    ];
    if (from.length) this.notice(`memory: ${from.join("; ")}`);
  }

  /** The person's message as this client sends it; its turn's start finds it shown. */
  user(text: string): void {
    this.blocks.push({ kind: "user", text, sent: true });
  }

  notice(text: string, tone: "info" | "bad" = "info"): void {
    this.closeReply();
    this.blocks.push({ kind: "notice", text, tone });
  }

  event(e: ChatEvent): void {
    switch (e.type) {
      case "turn-start": {
        const words = e.text ?? "";
        const shown = this.blocks.findLast((b) => b.kind === "user" && b.sent && b.text === words);
        if (shown?.kind === "user") shown.sent = false;
        else if (words) this.blocks.push({ kind: "user", text: words });
        break;
      }
      case "done":
        this.finish(e.result);
        break;
      case "text-delta": {
        const last = this.blocks.at(-1);
        if (last?.kind === "reply" && last.open) last.text += e.text;
        else this.blocks.push({ kind: "reply", text: e.text, open: true });
        break;
      }
      case "text-replace": {
        const reply = this.openReply();
        if (reply) reply.text = e.text;
        else this.blocks.push({ kind: "reply", text: e.text, open: true });
        this.notice("the reply was changed by a plugin");
        break;
      }
      case "tool-call":
        this.closeReply();
        this.blocks.push({ kind: "tool", callId: e.callId, name: e.name, args: e.arguments });
        break;
      case "tool-result": {
        const images = e.images?.length ?? 0;
        const result = { status: e.status, content: e.content, images };
        const card = this.card(e.callId);
        if (card) card.result = result;
        else this.blocks.push({ kind: "tool", callId: e.callId, name: e.name, args: "", result });
        break;
      }
      case "approval-answered": {
        const card = this.card(e.callId);
        if (card?.asked && !card.asked.answer)
          card.asked.answer = e.approved ? "answered elsewhere: approved" : "answered elsewhere: denied";
        break;
      }
      case "notice":
        this.notice(e.text);
        break;
      case "context":
        this.context(e);
        break;
    }
  }

  /** An approval question: it goes on its tool's card (a card of its own if the call was not shown). */
  ask(q: ApprovalQuestion): void {
    let card = this.card(q.callId);
    if (!card) {
      card = { kind: "tool", callId: q.callId, name: q.tool, args: JSON.stringify(q.arguments) };
      this.closeReply();
      this.blocks.push(card);
    }
    card.asked = { note: q.note };
  }

  answered(callId: string, answer: Answer): void {
    const card = this.card(callId);
    if (card?.asked && !card.asked.answer) card.asked.answer = answer;
  }

  /** Whether the question about `callId` still waits for an answer. */
  open(callId: string): boolean {
    const card = this.card(callId);
    return card?.asked !== undefined && card.asked.answer === undefined;
  }

  /**
   * The turn ended: the reply is the final text (a plugin may have changed it), then the summary
   * — none for a reply that cost nothing and ended normally (one imported from another app).
   */
  private finish(r: TurnResultView): void {
    const reply = this.openReply();
    if (reply) {
      if (r.text && reply.text.trimEnd() !== r.text.trimEnd()) reply.text = r.text;
      reply.open = false;
    } else if (r.text) this.blocks.push({ kind: "reply", text: r.text, open: false });
    for (const b of this.blocks) if (b.kind === "tool" && b.asked && !b.asked.answer) b.asked.answer = "denied";
    const spent = r.usage.inputTokens + r.usage.outputTokens > 0 || r.conversation !== null;
    if (spent || r.stopReason !== "done") this.notice(turnSummary(r), r.stopReason === "error" ? "bad" : "info");
  }

  /** The transcript laid out at `width`; with `need`, only the newest blocks that give that many lines. */
  lines(width: number, need = Number.POSITIVE_INFINITY): Line[] {
    const parts: Line[][] = [];
    let n = 0;
    const w = Math.max(10, width);
    for (let i = this.blocks.length - 1; i >= 0 && n < need; i--) {
      const laid = this.laid(this.blocks[i] as Block, w);
      parts.push(i > 0 ? [{ text: "" }, ...laid] : laid);
      n += laid.length + 1;
    }
    return parts.reverse().flat();
  }

  /**
   * A block's lines, kept until its width or content changes: the screen is redrawn on every
   * streamed chunk, and wrapping a long conversation each time would cost more than the chunk.
   */
  private laid(b: Block, w: number): Line[] {
    const key = `${w}|${blockKey(b)}`;
    const hit = this.cache.get(b);
    if (hit?.key === key) return hit.lines;
    let lines: Line[];
    if (b.kind === "user")
      lines = wrap(b.text, w - 2).map((t, i) => ({ text: `${i ? "  " : "› "}${t}`, paint: style.bold }));
    else if (b.kind === "reply") lines = wrap(b.text.replace(/\n+$/, ""), w).map((text) => ({ text }));
    else if (b.kind === "notice")
      lines = wrap(b.text, w).map((text) => ({ text, paint: b.tone === "bad" ? style.red : style.dim }));
    else lines = cardLines(b, w);
    this.cache.set(b, { key, lines });
    return lines;
  }

  private card(callId: string | undefined): ToolCard | undefined {
    if (!callId) return undefined;
    for (let i = this.blocks.length - 1; i >= 0; i--) {
      const b = this.blocks[i] as Block;
      if (b.kind === "tool" && b.callId === callId) return b;
    }
    return undefined;
  }

  private openReply(): { text: string; open: boolean } | undefined {
    for (let i = this.blocks.length - 1; i >= 0; i--) {
      const b = this.blocks[i] as Block;
      if (b.kind === "reply" && b.open) return b;
      if (b.kind === "user") return undefined;
    }
    return undefined;
  }

  private closeReply(): void {
    const last = this.blocks.at(-1);
    if (last?.kind === "reply") last.open = false;
  }
}

/** What a block's lines depend on besides the width. */
function blockKey(b: Block): string {
  if (b.kind === "tool")
    return `${b.args.length}|${b.asked ? `${b.asked.answer ?? "?"}|${b.asked.note ?? ""}` : ""}|${b.result ? `${b.result.status}|${b.result.content.length}` : ""}`;
  return b.text;
}

/** A tool call as a card: its name on the top edge, arguments, the question and answer, the result. */
function cardLines(c: ToolCard, width: number): Line[] {
  const inner = width - 2;
  const edge = style.cyan;
  // Only the start of a long argument or result is wrapped: the card shows CARD_LINES lines.
  const body = (text: string, paint?: (s: string) => string): Line[] =>
    clip(wrap(text.slice(0, inner * CARD_LINES * 2), inner), text.length > inner * CARD_LINES * 2).map((t) => ({
      text: `│ ${t}`,
      paint: paint ? (s) => edge(s.slice(0, 2)) + paint(s.slice(2)) : edge,
    }));
  const head = `┌─ ${fit(c.name, width - 5)} `;
  const out: Line[] = [{ text: head + "─".repeat(Math.max(0, width - cells(head))), paint: edge }];
  if (c.args) out.push(...body(c.args, (s) => s));
  if (c.asked) {
    if (c.asked.note) out.push(...body(`[${c.asked.note}]`, style.yellow));
    const a = c.asked.answer;
    if (!a) out.push(...body("? allow this call — y yes · n no · a always · c yes in this conversation", style.yellow));
    else
      out.push(
        ...body(
          a === "denied"
            ? "✗ denied"
            : a === "always"
              ? "✓ approved, always from now on"
              : a === "approved"
                ? "✓ approved"
                : a,
          a.includes("denied") ? style.red : style.green,
        ),
      );
  }
  if (c.result) {
    const pics = c.result.images
      ? ` [+${c.result.images} image${c.result.images > 1 ? "s" : ""}, shown in the web UI]`
      : "";
    const { status, content } = c.result;
    const said = content.startsWith(`${status}:`) ? content : `${status}: ${content}`;
    out.push(...body(`← ${said}${pics}`, status === "ok" ? (s) => s : style.red));
  } else if (!c.asked || c.asked.answer?.includes("approved") || c.asked.answer === "always")
    out.push({ text: "│ …", paint: edge });
  out.push({ text: `└${"─".repeat(width - 1)}`, paint: edge });
  return out;
}

function clip(lines: string[], cut = false): string[] {
  if (lines.length <= CARD_LINES && !cut) return lines;
  const shown = lines.slice(0, CARD_LINES - 1);
  return [...shown, cut ? "… (more in the web UI)" : `… (${lines.length - shown.length} more lines)`];
}
