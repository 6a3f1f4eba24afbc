/**
 * A running task as a stream of A2A results: the task first, then its reply text as chunks of
 * one artifact (a chunk with append false replaces what came before: the model's draft before a
 * tool call is not the answer), a last chunk that closes the artifact, then the final status.
 * One listener per stream; events queue until the HTTP response takes them.
 */
import { type A2aTask, artifactUpdate, type Dialect, statusUpdate, taskJson, taskResult } from "./a2a-model.ts";
import type { RunEvent } from "./a2a-runner.ts";

export class TaskEvents {
  private readonly queue: RunEvent[] = [];
  private wake: (() => void) | null = null;

  /** Give this to the runner as the task's listener. */
  readonly listen = (e: RunEvent): void => {
    this.queue.push(e);
    this.wake?.();
  };

  /**
   * The results for `task` in dialect `d`. `sofar`: reply text the task streamed before this
   * listener joined (a resubscription), sent first as the artifact's opening chunk.
   */
  async *results(d: Dialect, task: A2aTask, sofar = ""): AsyncGenerator<Record<string, unknown>> {
    yield taskResult(d, taskJson(d, task));
    let streamed = sofar;
    if (sofar) yield artifactUpdate(d, task, sofar, false, false);
    let replace = false;
    for (;;) {
      if (this.queue.length === 0) await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = null;
      for (const e of this.queue.splice(0)) {
        if (e.type === "reset") replace = streamed !== "";
        else if (e.type === "delta") {
          yield artifactUpdate(d, task, e.text, !replace && streamed !== "", false);
          streamed = replace ? e.text : streamed + e.text;
          replace = false;
        } else {
          const t = e.task;
          const reply = t.reply?.text ?? "";
          if (t.state === "completed") {
            const same = reply === streamed && streamed !== "" && !replace;
            yield artifactUpdate(d, t, same ? "" : reply, same, true);
          }
          yield statusUpdate(d, t);
          return;
        }
      }
    }
  }
}
