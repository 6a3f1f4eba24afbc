/**
 * A2A tasks, kept in the log as the web plugin's own records (records/append, type "a2a-task":
 * a snapshot of the task each time its state changes; the last snapshot of an id wins), so
 * GetTask and ListTasks answer for tasks from before a daemon restart. A task the daemon stopped
 * in the middle of comes back failed: its turn ended with the daemon.
 */
import * as v from "valibot";
import {
  MAX_RECORD_BYTES,
  MAX_RECORDS_PAGE,
  PluginMethod,
  RecordsAppendResult,
  RecordsListResult,
} from "../../src/protocol/plugin.ts";
import type { Plugin } from "../sdk/index.ts";
import { type A2aTask, TERMINAL_STATES } from "./a2a-model.ts";

export const TASK_RECORD = "a2a-task";

const Said = v.object({ messageId: v.string(), text: v.string() });
const TaskRecord = v.object({
  id: v.string(),
  contextId: v.string(),
  peer: v.string(),
  state: v.picklist(["submitted", "working", "completed", "failed", "canceled", "rejected"]),
  createdAt: v.number(),
  updatedAt: v.number(),
  input: Said,
  reply: v.nullable(Said),
});

/**
 * UTF-8 bytes of JSON kept per message text, in a record and in memory: two of them and the
 * rest of a task fit a record (MAX_RECORD_BYTES); the whole text stays in the conversation.
 */
const KEPT_BYTES = Math.floor(MAX_RECORD_BYTES * 0.45);
const CUT_NOTE = "… [cut; the whole text is in homed's conversation log]";
const jsonBytes = (text: string) => Buffer.byteLength(JSON.stringify(text));

function clip(s: { messageId: string; text: string }): { messageId: string; text: string } {
  if (jsonBytes(s.text) <= KEPT_BYTES) return s;
  // The longest prefix that fits (escapes and multi-byte characters make bytes ≠ characters).
  let lo = 0;
  let hi = s.text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (jsonBytes(s.text.slice(0, mid) + CUT_NOTE) <= KEPT_BYTES) lo = mid;
    else hi = mid - 1;
  }
  return { ...s, text: s.text.slice(0, lo) + CUT_NOTE };
}

/** Tasks kept in memory; the oldest finished ones beyond this are forgotten (GetTask: not found). */
const MAX_TASKS = 2000;

export class TaskBook {
  private readonly tasks = new Map<string, A2aTask>();
  /** Which peer each contextId belongs to: another caller cannot join its conversation. */
  private readonly owners = new Map<string, string>();
  private loaded: Promise<void> | null = null;

  constructor(private readonly plugin: Plugin) {}

  /** Read the records back once (on first use; again after a failed try). */
  load(): Promise<void> {
    this.loaded ??= this.read().catch((err) => {
      this.loaded = null;
      throw err;
    });
    return this.loaded;
  }

  private async read(): Promise<void> {
    let after = 0;
    for (;;) {
      const page = await this.plugin.call(
        PluginMethod.RecordsList,
        { after, limit: MAX_RECORDS_PAGE },
        RecordsListResult,
      );
      for (const r of page) {
        after = r.id;
        if (r.type !== TASK_RECORD) continue;
        const t = v.safeParse(TaskRecord, r.data);
        if (!t.success) {
          this.plugin.log.warn("a2a: unreadable task record skipped", { record: r.id });
          continue;
        }
        this.remember({ ...t.output });
      }
      if (page.length < MAX_RECORDS_PAGE) break;
    }
    for (const t of this.tasks.values())
      if (!TERMINAL_STATES.has(t.state)) {
        t.state = "failed";
        t.reply ??= { messageId: `${t.id}-restart`, text: "homed restarted before the task finished" };
      }
  }

  private remember(t: A2aTask): void {
    this.tasks.set(t.id, t);
    if (this.tasks.size > MAX_TASKS)
      for (const old of this.tasks.values())
        if (TERMINAL_STATES.has(old.state)) {
          this.tasks.delete(old.id);
          break;
        }
    if (!this.owners.has(t.contextId)) this.owners.set(t.contextId, t.peer);
  }

  /** The peer a context belongs to, if any task used it. */
  ownerOf(contextId: string): string | undefined {
    return this.owners.get(contextId);
  }

  get(id: string): A2aTask | undefined {
    return this.tasks.get(id);
  }

  /** Record the task as it is now (a new one, or a changed state). */
  async save(t: A2aTask): Promise<void> {
    const data = { ...t, input: clip(t.input), reply: t.reply ? clip(t.reply) : null };
    this.remember(data);
    await this.plugin.call(PluginMethod.RecordsAppend, { type: TASK_RECORD, data }, RecordsAppendResult);
  }

  /** One peer's tasks, newest first, filtered. */
  list(peer: string, f: { contextId?: string; state?: string; after?: number }): A2aTask[] {
    return [...this.tasks.values()]
      .filter(
        (t) =>
          t.peer === peer &&
          (f.contextId === undefined || t.contextId === f.contextId) &&
          (f.state === undefined || t.state === f.state) &&
          (f.after === undefined || t.updatedAt > f.after),
      )
      .sort((a, b) => b.updatedAt - a.updatedAt || b.createdAt - a.createdAt);
  }
}
