/**
 * `homed chat`: send one message to the running daemon and stream the answer. On a terminal the
 * reply is shown as it is written; into a pipe or file only the final reply goes, so stdout is
 * exactly the answer. Tool calls, notices and approval questions go to stderr, so stdout
 * can be piped. An approval question is answered with a line on stdin (y = yes); no terminal or
 * no answer means no.
 */
import type { TurnResultView } from "../protocol/control.ts";
import type { ApprovalAnswer } from "../protocol/turn-stream.ts";
import { type ApprovalQuestion, type ChatEvent, type ChatHandlers, ChatConnection } from "./chat-connection.ts";

/** The scene `homed chat` declares for its turns: the owner at a terminal. */
export const CHAT_SCENE = "chan:cli/peer:terminal";

export interface ChatIO {
  /** Stream the reply as it is written (a terminal); otherwise only the final text is printed. */
  stream: boolean;
  out(text: string): void;
  err(text: string): void;
  /** One line typed by the person, or null when there is nobody to ask. */
  readLine(): Promise<string | null>;
}

function short(text: string, max = 200): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max)}…` : one;
}

/** The one-line question an approval puts to the person (the answer follows on the same line). */
export function approvalPrompt(q: ApprovalQuestion): string {
  const why = q.note ? `[${q.note}]\n` : "";
  return `${why}? allow ${q.tool} ${short(JSON.stringify(q.arguments), 400)} [y/N] (c = yes for this conversation) `;
}

/** A typed answer to an approval question: only y or yes (any case) is a yes. */
export function isYes(line: string | null): boolean {
  return line !== null && /^y(es)?$/i.test(line.trim());
}

/** A typed answer: y or yes, c (yes for the rest of the conversation), anything else no. */
export function answerOf(line: string | null): ApprovalAnswer {
  if (line !== null && /^c(onversation)?$/i.test(line.trim())) return "conversation";
  return isYes(line);
}

/** How a typed answer is said back. */
export function saidAnswer(a: ApprovalAnswer): string {
  return a === "conversation" ? "approved for this conversation\n" : a ? "approved\n" : "denied\n";
}

/**
 * Shows one turn as it happens: the reply on `out` (streamed when `io.stream`), tool calls and
 * notices as lines on `err`. `finish` makes `out` end with the turn's final text.
 */
export class TurnPrinter {
  private streamed = "";
  private afterTools = false;

  constructor(private readonly io: Pick<ChatIO, "stream" | "out" | "err">) {}

  event(e: ChatEvent): void {
    const io = this.io;
    switch (e.type) {
      case "text-delta":
        if (!io.stream) break;
        if (this.afterTools) {
          // A new model call after tool results: the reply so far was an intermediate step.
          this.streamed = "";
          this.afterTools = false;
        }
        this.streamed += e.text;
        io.out(e.text);
        break;
      case "text-replace":
        if (!io.stream) break;
        if (this.streamed) io.out("\n");
        io.err(`[the reply was changed by a plugin]\n`);
        this.streamed = e.text;
        if (this.streamed) io.out(this.streamed);
        break;
      case "tool-call":
        this.endLine();
        io.err(`→ ${e.name} ${short(e.arguments)}\n`);
        break;
      case "tool-result":
        {
          // Images are for the model and the web UI; a terminal says how many there were.
          const n = e.images?.length ?? 0;
          const pics = n ? ` [+${n} image${n > 1 ? "s" : ""}, shown in the web UI]` : "";
          io.err(`← ${e.name} [${e.status}] ${short(e.content)}${pics}\n`);
        }
        this.afterTools = true;
        break;
      case "notice":
        this.endLine();
        io.err(`[${e.text}]\n`);
        break;
      case "context": {
        // Said only when memory brought in more than the conversation's recent turns.
        const from = [
          ...(e.recalled ? ["recalled older turns of this conversation"] : []),
          ...(e.across ? ["quoted your other conversations"] : []),
        ];
        if (from.length) io.err(`[memory: ${from.join("; ")}]\n`);
        break;
      }
    }
  }

  /** Before a line on stderr: end the reply's partial line, so the two do not run together. */
  endLine(): void {
    if (this.io.stream && this.streamed && !this.streamed.endsWith("\n")) {
      this.io.out("\n");
      this.streamed += "\n";
    }
  }

  /** The final text may differ from what streamed (before_output); make `out` end with it. */
  finish(r: TurnResultView): void {
    const shown = this.streamed.replace(/\n+$/, "");
    if (r.text !== this.streamed && r.text !== shown) {
      if (this.streamed && !this.streamed.endsWith("\n")) this.io.out("\n");
      this.io.out(r.text);
    }
    this.io.out("\n");
  }
}

/** What one turn needs of a connection: the control socket's ChatConnection, or waiter's link. */
export interface TurnLink {
  send(text: string, conv: string): Promise<TurnResultView>;
  close(): void;
}

/**
 * Send one message, print the turn, and return its result. `target` is the daemon's control
 * socket, or what opens another link to a homed (waiter's remote one).
 */
export async function chatOnce(
  target: string | ((handlers: ChatHandlers) => Promise<TurnLink>),
  message: { text: string; conv: string },
  io: ChatIO,
): Promise<TurnResultView> {
  const printer = new TurnPrinter(io);
  const open = typeof target === "string" ? (h: ChatHandlers) => ChatConnection.open(target, h, "chat") : target;
  const conn = await open({
    event: (e) => printer.event(e),
    approve: async (q) => {
      printer.endLine();
      io.err(approvalPrompt(q));
      const line = await io.readLine();
      const a = answerOf(line);
      io.err(line === null ? "no answer: denied\n" : saidAnswer(a));
      return a;
    },
  });
  try {
    const r = await conn.send(message.text, message.conv, { scene: CHAT_SCENE });
    printer.finish(r);
    return r;
  } finally {
    conn.close();
  }
}
