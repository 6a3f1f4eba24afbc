/**
 * cost.tools_reach, cost.prefix_kept_pct, cost.uncached_bytes: one conversation of 21 prompts as
 * a person has it, plain ones between 9 that need a tool (a shell command, a reminder, a search
 * of the files, writing and reading a file, a note, the notes' list, a calendar event, the
 * workspace's list), through the daemon with the scripted provider. At a tool prompt the model
 * calls the tool by its name, whether or not the call carried its schema, and says "Done." once
 * the result is back; approvals are out of the way ([approval] default = "allow", every tool's
 * output trusted).
 *   - cost.tools_reach: the tool prompts whose tool ran (its result "ok"), of cost.tools_needed (9);
 *   - cost.prefix_kept_pct: of each request (compact JSON `{"tools":…,"messages":…}`), the share
 *     the next request starts with, the mean over the conversation;
 *   - cost.uncached_bytes: the bytes of every request that no earlier request's prefix covered
 *     (the first request's all), summed — what a provider's prompt cache could not have served.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startAgentRig } from "../test/harness/agent-daemon.ts";
import { commonPrefix } from "./cost.ts";
import { report } from "./report.ts";

interface Prompt {
  said: string;
  /** The tool the prompt needs, called by name with these arguments. */
  tool?: { name: string; arguments: Record<string, unknown> };
}

function tomorrowAt9(): string {
  const d = new Date(Date.now() + 86_400_000);
  return `${d.toISOString().slice(0, 10)}T09:00`;
}

function prompts(): Prompt[] {
  return [
    { said: "hello" },
    { said: "What's a good name for a cat?" },
    { said: "Run `ls` in a shell for me.", tool: { name: "shell_run", arguments: { command: "ls" } } },
    { said: "thanks!" },
    {
      said: "Remind me tomorrow at 9 to call the bank.",
      tool: {
        name: "schedule_create",
        arguments: { prompt: "Remind me to call the bank", at: tomorrowAt9(), timezone: "UTC" },
      },
    },
    { said: "Search my files for the word banana.", tool: { name: "files_grep", arguments: { pattern: "banana" } } },
    {
      said: "Write a file called todo.txt that says: buy milk, bananas.",
      tool: { name: "files_write", arguments: { path: "todo.txt", content: "buy milk, bananas\n" } },
    },
    { said: "How are you today?" },
    { said: "Read todo.txt back to me.", tool: { name: "files_read", arguments: { path: "todo.txt" } } },
    { said: "What's the capital of France?" },
    {
      said: "Make a note called groceries: eggs and bread.",
      tool: { name: "notes_create", arguments: { name: "groceries", text: "- eggs\n- bread\n" } },
    },
    { said: "Tell me a joke about cats." },
    { said: "Which notes do I have?", tool: { name: "notes_list", arguments: {} } },
    {
      said: "Put the dentist on my calendar tomorrow at 3pm.",
      tool: {
        name: "calendar_create",
        arguments: { title: "Dentist", start: `${tomorrowAt9().slice(0, 10)}T15:00`, timezone: "UTC" },
      },
    },
    { said: "Summarise what we did so far in one line." },
    { said: "What's in my workspace folder?", tool: { name: "files_list", arguments: {} } },
    { said: "Good. What's 17 times 23?" },
    { said: "And what time zone is Tokyo in?" },
    { said: "Give me three ideas for dinner." },
    { said: "Which of those is quickest?" },
    { said: "Thanks for everything, good night." },
  ];
}

/** What the 21-prompt conversation cost and reached. */
export async function toolsReach(): Promise<{ reach: number; needed: number; keptPct: number; uncached: number }> {
  const data = mkdtempSync(join(tmpdir(), "homed-bench-reach-"));
  try {
    // Approvals out of the way: allowed by default, and no tool's output marks the conversation
    // (the files and the command's output are the bench's own).
    writeFileSync(
      join(data, "config.toml"),
      '[approval]\ndefault = "allow"\n\n[trust]\ntools = ["*"]\n\n[tools.calendar]\ntimezone = "UTC"\n',
    );
    await using rig = await startAgentRig(data, { plugin: false });
    let reach = 0;
    let needed = 0;
    for (const [i, p] of prompts().entries()) {
      rig.llm.script(
        p.tool
          ? [{ toolCalls: [{ name: p.tool.name, arguments: p.tool.arguments }] }, { text: "Done." }]
          : [{ text: `Reply ${i + 1}: ${p.said.length % 2 ? "sure" : "of course"}.` }],
      );
      const r = await rig.chat(p.said, { conv: "day" });
      if (r.exitCode !== 0) throw new Error(`homed chat failed: ${r.stderr}`);
      if (p.tool) {
        needed++;
        if (r.stderr.includes(`← ${p.tool.name} [ok]`)) reach++;
        else if (process.env.REACH_MISSES) console.error(`${p.tool.name}: ${r.stderr}`);
      }
    }
    const bodies = rig.llm.requests.map((q) => {
      const b = q.body as { tools?: unknown; messages?: unknown };
      return JSON.stringify({ tools: b.tools, messages: b.messages });
    });
    let kept = 0;
    for (let i = 1; i < bodies.length; i++)
      kept += commonPrefix(bodies[i - 1] as string, bodies[i] as string) / (bodies[i - 1] as string).length;
    let uncached = 0;
    for (const [i, b] of bodies.entries()) {
      let covered = 0;
      for (let j = 0; j < i; j++) covered = Math.max(covered, commonPrefix(bodies[j] as string, b));
      uncached += Buffer.byteLength(b.slice(covered));
    }
    return { reach, needed, keptPct: (100 * kept) / Math.max(1, bodies.length - 1), uncached };
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
}

export async function benchToolsReach(): Promise<void> {
  const r = await toolsReach();
  report("cost.tools_reach", r.reach, "prompts", 0);
  report("cost.tools_needed", r.needed, "prompts", 0);
  report("cost.prefix_kept_pct", r.keptPct, "%", 1);
  report("cost.uncached_bytes", r.uncached, "B", 0);
}

if (import.meta.main) await benchToolsReach();
