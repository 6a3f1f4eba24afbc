/**
 * The `schedule` plugin: jobs that ask the agent a prompt at a time or on a schedule. Jobs are
 * records in the log (records/append), folded into a JobBook at start; each run is a turn in
 * the job's conversation through the kernel's chat/send with origin "scheduled", so it passes
 * the same tool gate as any turn and nobody can be asked: "ask" means deny.
 *
 * Lazy, but kept running while it has work: a stopped plugin could not fire a job, so while a
 * job waits or runs it says plugin/keep-running (the kernel remembers it and starts the plugin
 * at boot); with none it may be stopped when idle and starts again on its next tool call.
 */
import { connectPlugin, withRun } from "../sdk/index.ts";
import { PluginMethod, RecordsAppendResult, RecordsListResult, MAX_RECORDS_PAGE } from "../../src/protocol/plugin.ts";
import { ChannelMethod } from "../../src/protocol/channel.ts";
import { fileClock, systemClock } from "./clock.ts";
import { jobConversation, jobTools } from "./job-tools.ts";
import { JobBook, type JobRecordData, type JobRecordType } from "./jobs.ts";
import { Scheduler } from "./scheduler.ts";
import { SETTINGS } from "./settings.ts";
import { TOOLS } from "./tools.ts";

/** A job's turn may use tools for a while; past this the plugin stops waiting and records an error. */
const RUN_TIMEOUT_MS = 2 * 60 * 60 * 1000;

const plugin = await connectPlugin();
const limits = await plugin.call(PluginMethod.ConfigGet, { section: "tools.schedules" }, SETTINGS.schema);
const testClock = process.env.HOMED_TEST_CLOCK_FILE;
const clock = testClock ? fileClock(testClock) : systemClock();
if (testClock) plugin.log.warn("schedule clock read from a file (a test)", { file: testClock });

const book = new JobBook();
let after = 0;
for (;;) {
  const page = await plugin.call(PluginMethod.RecordsList, { after, limit: MAX_RECORDS_PAGE }, RecordsListResult);
  for (const r of page) if (!book.apply(r.type, r.data)) plugin.log.warn("record ignored", { id: r.id, type: r.type });
  if (page.length < MAX_RECORDS_PAGE) break;
  after = (page[page.length - 1] as { id: number }).id;
}

async function record<T extends JobRecordType>(type: T, data: JobRecordData<T>): Promise<void> {
  await plugin.call(PluginMethod.RecordsAppend, { type, data }, RecordsAppendResult);
  book.apply(type, data);
  updateKeepRunning();
}

/** What the kernel was last told: null until the first word (the remembered flag may be stale). */
let keeping: boolean | null = null;
function updateKeepRunning(): void {
  const on = book.active().length > 0 || scheduler.busy;
  if (on === keeping) return;
  keeping = on;
  void plugin.keepRunning(on).catch((err) => plugin.log.warn("keep-running not sent", { err: (err as Error).message }));
}

const scheduler = new Scheduler({
  book,
  clock,
  record,
  log: plugin.log,
  changed: () => updateKeepRunning(),
  async runTurn(job, signal) {
    const stream = `job-${job.id}-${crypto.randomUUID()}`;
    const cancel = () => void plugin.request(ChannelMethod.ChatCancel, { stream }).catch(() => {});
    signal.addEventListener("abort", cancel, { once: true });
    try {
      const r = await plugin.turns.send(
        {
          conv: jobConversation(job.id),
          channel: "schedule",
          text: job.prompt,
          untrusted: job.untrusted,
          ...(job.mark ? { mark: job.mark } : {}),
          interactive: false,
          origin: "scheduled",
        },
        { event: () => {} },
        { stream, timeoutMs: RUN_TIMEOUT_MS },
      );
      return { turn: r.turn, stop: r.stopReason, text: r.text };
    } finally {
      signal.removeEventListener("abort", cancel);
    }
  },
});

const tools = jobTools({ book, scheduler, clock, limits, record });
await plugin.tools([
  withRun(TOOLS.schedule_create, tools.create),
  withRun(TOOLS.schedule_list, tools.list),
  withRun(TOOLS.schedule_cancel, tools.cancel),
]);
plugin.onShutdown(() => {
  scheduler.stop();
  clock.close();
});
await plugin.ready("tool.schedule");
const active = book.active();
plugin.log.info("schedule plugin ready", { jobs: active.length, timezone: limits.timezone || "(machine)" });
updateKeepRunning();
// Jobs whose time passed while the daemon was down run now, once each.
await scheduler.fireDue();
