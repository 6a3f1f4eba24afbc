/**
 * `homed chat` with no message, at a terminal: an interactive line session over one connection
 * to the daemon. A line typed at the prompt is a message; the reply streams in, tool calls show
 * as `→`/`←` lines and an approval is asked in place (y = yes). Up and down walk the messages
 * typed in this session. Ctrl-C during a turn stops it on the daemon (`chat.cancel`); Ctrl-C
 * again — while it stops, or at the prompt after it — exits, as do Ctrl-D at an empty prompt
 * and two Ctrl-C in a row at the prompt. Built on node:readline and `ChatConnection` only, so a
 * full-screen client can take the same pieces.
 */
import { tokenWords } from "../protocol/usage.ts";
import { createInterface } from "node:readline";
import type { TurnResultView } from "../protocol/control.ts";
import { HomedError } from "../protocol/errors.ts";
import { ChatConnection } from "./chat-connection.ts";
import { answerOf, approvalPrompt, CHAT_SCENE, saidAnswer, TurnPrinter } from "./chat.ts";
import type { ApprovalAnswer } from "../protocol/turn-stream.ts";

export interface SessionTerminal {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

/** What a finished turn says after its reply: how it ended and what it cost. */
export function turnSummary(r: TurnResultView): string {
  const c = r.conversation;
  const how = r.stopReason === "error" && r.error ? `error: ${r.error}` : r.stopReason;
  return `[${how}; ${tokenWords(r.usage)} tokens${c ? `; conversation: ${c.turns} ${c.turns === 1 ? "turn" : "turns"}` : ""}]`;
}

/**
 * Run the session until the person leaves; resolves with the exit status (0, or the status of
 * the HomedError that ended it, e.g. 69 when the daemon went away).
 */
export async function runChatSession(socketPath: string, conv: string, term: SessionTerminal): Promise<number> {
  const write = (t: string) => void term.output.write(t);
  const io = { stream: true, out: write, err: write };
  let printer = new TurnPrinter(io);
  /** The running turn, if any; `stopping` once Ctrl-C asked the daemon to cancel it. */
  let turn: { stopping: boolean } | null = null;
  /** The pending approval's answer, while one is asked. */
  let answer: ((line: string | null) => void) | null = null;
  /** The question the pending approval is about (another client may answer it first). */
  let asked: string | null = null;
  /** Drop the pending approval without an answer of ours (it was answered elsewhere). */
  let dismiss: (() => void) | null = null;
  /** A Ctrl-C was the last thing pressed: the next one exits. */
  let armed = false;
  /** Re-attaching to a turn another client started: say so at its first event. */
  let attaching = false;

  const conn = await ChatConnection.open(
    socketPath,
    {
      event: (e) => {
        if (attaching && e.type === "turn-start") {
          attaching = false;
          write("[a reply is running in this conversation (started elsewhere): following it; Ctrl-C stops it]\n");
        }
        if (e.type === "approval-answered" && e.callId === asked && dismiss) {
          // Answered in another client (the web UI): this prompt is moot.
          const approved = e.approved === true;
          dismiss();
          write(`\n[answered elsewhere: ${approved ? "approved" : "denied"}]\n`);
          rl.setPrompt("> ");
          return;
        }
        printer.event(e);
      },
      approve: (q) =>
        new Promise<ApprovalAnswer>((resolve) => {
          printer.endLine();
          asked = q.callId;
          dismiss = () => {
            answer = null;
            dismiss = null;
            asked = null;
            resolve(false);
          };
          answer = (line) => {
            answer = null;
            dismiss = null;
            asked = null;
            const a = answerOf(line);
            write(saidAnswer(a));
            resolve(a);
          };
          rl.setPrompt(approvalPrompt(q));
          rl.prompt();
        }),
    },
    "chat",
  );
  const rl = createInterface({ input: term.input, output: term.output, terminal: true, historySize: 500 });
  rl.setPrompt("> ");

  let finish: (status: number) => void = () => {};
  const done = new Promise<number>((resolve) => {
    finish = resolve;
  });
  let leaving = false;
  const leave = async (status: number) => {
    if (leaving) return;
    leaving = true;
    if (turn) await conn.cancel().catch(() => 0);
    rl.close();
    // The prompt is still on the cursor's line: leave the shell a fresh one.
    write("\n");
    conn.close();
    finish(status);
  };

  const stopTurn = () => {
    if (!turn) return;
    if (turn.stopping) return void leave(0);
    turn.stopping = true;
    armed = true;
    printer.endLine();
    write("^C [stopping the turn; Ctrl-C again exits]\n");
    // The cancel goes out before the approval's "no": the daemon sees the turn stopped, not a
    // denial the model might answer.
    conn.cancel().catch(() => 0);
    answer?.(null);
  };

  /** Run `text` as a turn, or (null) follow the turn already running in the conversation, if any. */
  const send = async (text: string | null) => {
    turn = { stopping: false };
    printer = new TurnPrinter(io);
    attaching = text === null;
    try {
      const r = text === null ? await conn.attach(conv) : await conn.send(text, conv, { scene: CHAT_SCENE });
      if (r) {
        printer.finish(r);
        write(`${turnSummary(r)}\n`);
      }
    } catch (err) {
      printer.endLine();
      const gone = err instanceof HomedError && err.code === "not_running";
      write(`homed: ${(err as Error).message}\n`);
      if (gone) return void leave(err.exitCode);
    } finally {
      turn = null;
      attaching = false;
    }
    if (leaving) return;
    rl.setPrompt("> ");
    rl.prompt();
  };

  rl.on("SIGINT", () => {
    if (turn) return stopTurn();
    if (rl.line) {
      // Like a shell: Ctrl-C drops what was typed and gives a fresh prompt.
      armed = false;
      write("^C\n");
      Object.assign(rl, { line: "", cursor: 0 });
      rl.prompt();
      return;
    }
    if (armed) return void leave(0);
    armed = true;
    write("^C (Ctrl-C again or Ctrl-D exits)\n");
    rl.prompt();
  });
  rl.on("line", (line) => {
    armed = false;
    if (answer) {
      dropFromHistory(rl, line);
      return answer(line);
    }
    if (turn) {
      write("[a reply is running: wait for it, or Ctrl-C to stop it]\n");
      return;
    }
    const text = line.trim();
    if (!text) return rl.prompt();
    void send(text);
  });
  rl.on("close", () => void leave(0));

  write(`homed chat — conversation ${conv}. Ctrl-C stops a reply; Ctrl-D exits.\n`);
  // A reply already running here (from the web UI, say) is followed to its end first.
  void send(null);
  return await done;
}

/** An approval answer is not a message: keep it out of the up-arrow history. */
function dropFromHistory(rl: object, line: string): void {
  const h = (rl as { history?: string[] }).history;
  if (Array.isArray(h) && h[0] === line) h.shift();
}
