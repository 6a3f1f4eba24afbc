/**
 * Runs A2A tasks as homed turns: each task is one `chat/send` on conversation `a2a:<contextId>`,
 * channel "a2a", scene `chan:a2a/peer:<caller>`, untrusted unless the caller is a trusted peer,
 * and non-interactive (nobody on an A2A stream can answer an approval question, so what needs
 * approval is denied by policy). Turns of one conversation queue in the kernel. A running task's
 * text streams to whoever listens; its end is saved to the task book.
 */
import { randomUUID } from "node:crypto";
import type { TurnResultView } from "../../src/protocol/control.ts";
import type { Plugin } from "../sdk/index.ts";
import type { A2aTask, TaskState } from "./a2a-model.ts";
import type { TaskBook } from "./a2a-tasks.ts";
import type { ChatHub } from "./chat-hub.ts";

export interface A2aCaller {
  peer: string;
  trusted: boolean;
}

/** What a listener of a running task hears. `reset`: the text streamed so far was a draft. */
export type RunEvent = { type: "delta"; text: string } | { type: "reset" } | { type: "end"; task: A2aTask };

interface Running {
  stream: string;
  done: Promise<A2aTask>;
  listeners: Set<(e: RunEvent) => void>;
  /** The reply text streamed since the last reset (what a listener joining now has missed). */
  sofar: string;
}

/** How long CancelTask waits for the turn to wind down before answering with what it has. */
const CANCEL_WAIT_MS = 30_000;

/** The task's final state from the turn's stop reason. */
function endState(r: TurnResultView): TaskState {
  if (r.stopReason === "cancelled") return "canceled";
  if (r.stopReason === "error") return "failed";
  // The input gate refused the message: the task was rejected, the reply says why.
  if (r.stopReason === "blocked") return "rejected";
  return "completed";
}

export class A2aRunner {
  private readonly running = new Map<string, Running>();

  constructor(
    private readonly plugin: Plugin,
    private readonly hub: ChatHub,
    private readonly book: TaskBook,
  ) {}

  isRunning(id: string): boolean {
    return this.running.has(id);
  }

  /**
   * Start a task; resolves once it is saved as working (its turn then runs on). `listen` hears
   * its streamed text and end from the first event on.
   */
  async start(
    caller: A2aCaller,
    contextId: string,
    input: { messageId: string; text: string },
    listen?: (e: RunEvent) => void,
  ): Promise<{ task: A2aTask; done: Promise<A2aTask> }> {
    const now = Date.now();
    const task: A2aTask = {
      id: randomUUID(),
      contextId,
      peer: caller.peer,
      state: "working",
      createdAt: now,
      updatedAt: now,
      input,
      reply: null,
    };
    await this.book.save(task);
    const listeners = new Set<(e: RunEvent) => void>(listen ? [listen] : []);
    const emit = (e: RunEvent) => {
      const r = this.running.get(task.id);
      if (r && e.type === "delta") r.sofar += e.text;
      else if (r && e.type === "reset") r.sofar = "";
      for (const l of listeners) l(e);
    };
    const stream = `a2a-${task.id}`;
    const done = (async () => {
      let state: TaskState;
      let text: string;
      try {
        const r = await this.hub.run(
          stream,
          `a2a:${contextId}`,
          input.text,
          {
            event: (e) => {
              if (e.type === "text-delta" && typeof e.text === "string") emit({ type: "delta", text: e.text });
              else if (e.type === "tool-call" || e.type === "text-replace") emit({ type: "reset" });
            },
          },
          "a2a",
          { untrusted: !caller.trusted, scene: `chan:a2a/peer:${caller.peer}` },
        );
        state = endState(r);
        text = state === "failed" ? `the model call failed: ${r.error ?? "unknown error"}` : r.text;
      } catch (err) {
        state = "failed";
        text = `homed could not run the turn: ${(err as Error).message}`;
      }
      const end: A2aTask = {
        ...task,
        state,
        updatedAt: Date.now(),
        reply: { messageId: randomUUID(), text },
      };
      try {
        await this.book.save(end);
      } catch (err) {
        this.plugin.log.warn("a2a: could not record the task's end", { task: task.id, err });
      }
      this.plugin.log.info("a2a task ended", { task: task.id, peer: caller.peer, state });
      this.running.delete(task.id);
      emit({ type: "end", task: end });
      return end;
    })();
    this.running.set(task.id, { stream, done, listeners, sofar: "" });
    return { task, done };
  }

  /** Listen to a running task from now on; undefined when it is not running. */
  subscribe(id: string, listen: (e: RunEvent) => void): { sofar: string; leave: () => void } | undefined {
    const r = this.running.get(id);
    if (!r) return undefined;
    r.listeners.add(listen);
    return { sofar: r.sofar, leave: () => r.listeners.delete(listen) };
  }

  /** Stop a running task; resolves with the task as it ended (or as it is, if that takes too long). */
  async cancel(id: string): Promise<A2aTask | undefined> {
    const r = this.running.get(id);
    if (!r) return this.book.get(id);
    await this.hub.cancel(r.stream);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), CANCEL_WAIT_MS)));
    const ended = await Promise.race([r.done, late]);
    clearTimeout(timer);
    return ended ?? this.book.get(id);
  }
}
