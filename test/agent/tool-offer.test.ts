/**
 * Tools by relevance (src/agent/tool-offer.ts), through dist/homed with the scripted model: what
 * each model call is offered is in the fake LLM's record. A plain hello is offered the core only;
 * an input that names a task is offered its tool; tools_find offers what it finds for the rest of
 * the turn; the conversation keeps its offer, finds included, while the provider keeps its cache;
 * a call to a tool that was not offered meets the same gate as any other.
 */
import { describe, expect, test } from "bun:test";
import { tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import type { RecordedRequest } from "../harness/fake-llm.ts";
import {
  CACHE_LIFETIME_MS,
  coreTools,
  MIN_CACHED_TOKENS,
  nextOffer,
  type RankTools,
} from "../../src/agent/tool-offer.ts";
import type { RegisteredTool } from "../../src/agent/tools.ts";

const offered = (r: RecordedRequest | undefined) =>
  ((r?.body.tools as { function: { name: string } }[] | undefined) ?? []).map((t) => t.function.name).sort();

describe("tools by relevance", () => {
  test("a plain hello in a fresh default install is offered the core only, in a body under 12,000 bytes", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    // Every built-in tool is registered (61 of them): offering is what changed, not registering.
    expect((await rig.status()).tools.length).toBeGreaterThan(50);
    rig.llm.script([{ text: "I can read files, search memory and find tools for a task." }]);
    const r = await rig.chat("Hello, what can you do?");
    expect(r.exitCode).toBe(0);
    const req = rig.llm.requests[0];
    expect(offered(req)).toEqual(["files_read", "memory_search", "tools_find"]);
    expect(JSON.stringify(req?.body).length).toBeLessThanOrEqual(12_000);
  }, 60_000);

  test("an input that names a task is offered its tool beside the core, a dozen at most", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    rig.llm.script([{ text: "ok" }]);
    await rig.chat("take a screenshot of example page");
    const names = offered(rig.llm.requests[0]);
    expect(names).toContain("browser_screenshot");
    expect(names).toEqual(expect.arrayContaining(["files_read", "memory_search", "tools_find"]));
    expect(names.length).toBeLessThanOrEqual(12);
    expect(names).not.toContain("music_play");
  }, 60_000);

  test("tools_find offers what it finds for the rest of the turn, and a tool used stays offered on the next", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    rig.llm.script([
      { toolCalls: [{ name: "tools_find", arguments: { query: "list my notes" } }] },
      { toolCalls: [{ name: "notes_list", arguments: {} }] },
      { text: "Done." },
    ]);
    // Long enough for a provider to cache (MIN_CACHED_TOKENS): the next turn keeps the offer.
    const r = await rig.chat(`hello there; my diary, for the record: ${"a quiet day at home. ".repeat(250)}`);
    expect(r.stdout).toContain("Done.");
    expect(r.stderr).toContain("← notes_list [ok]");
    const [first, second, third] = rig.llm.requests;
    expect(offered(first)).not.toContain("notes_list");
    const sent = (second?.body.messages ?? []) as { role: string; content: string }[];
    const found = sent.findLast((m) => m.role === "tool");
    expect(found?.content).toContain("- notes_list: ");
    expect(offered(second)).toContain("notes_list");
    expect(offered(third)).toContain("notes_list");

    // The next turn keeps the offer as the turn left it, finds included, byte for byte: the tool
    // definitions come first in what the provider caches.
    rig.llm.script([{ text: "You're welcome." }]);
    await rig.chat("thanks");
    const next = rig.llm.requests[3];
    expect(offered(next)).toEqual(offered(third));
    expect(JSON.stringify(next?.body.tools)).toBe(JSON.stringify(third?.body.tools));
  }, 60_000);

  test("a call to a tool that was not offered passes the same gate: asked, declined, then allowed", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path);
    // Every call of the round denied ends the turn: no second model call.
    rig.llm.script([{ toolCalls: [{ name: "shell_exec", arguments: '{"cmd":"ls"}' }] }]);
    const declined = await rig.chat("hello", { stdin: "n\n" });
    expect(offered(rig.llm.requests[0])).not.toContain("shell_exec");
    expect(declined.stderr).toContain("? allow shell_exec");
    expect(declined.stderr).toContain("denied: the user declined shell_exec");
    expect(rig.seen().some((s) => s.tool === "shell_exec")).toBe(false);

    rig.llm.script([{ toolCalls: [{ name: "shell_exec", arguments: '{"cmd":"ls"}' }] }, { text: "ran" }]);
    const approved = await rig.chat("hello again", { stdin: "y\n" });
    expect(approved.stderr).toContain("? allow shell_exec");
    expect(approved.stdout).toContain("ran");
    expect(rig.seen().some((s) => s.tool === "shell_exec")).toBe(true);
  }, 60_000);
});

describe("a conversation's offer from turn to turn", () => {
  // Ranks the input's words that are tool names: enough to tell one offer from another.
  const rank: RankTools = (texts, limit) =>
    (texts[0]?.text.split(" ") ?? []).filter((w) => w.includes("_")).slice(0, limit);
  const kept = { offer: new Set(["memory_search", "tools_find", "files_read", "notes_list"]), at: 1_000 };
  const CORE = ["memory_search", "tools_find", "files_read"];

  test("is kept while the provider keeps its cache, and chosen afresh after a new plan or a quiet spell", () => {
    const now = kept.at + 60_000;
    const long = MIN_CACHED_TOKENS;
    expect(nextOffer(CORE, kept, now, long, false, "play music_play", [], null, rank)).toBe(kept.offer);
    expect([...(nextOffer(CORE, kept, now, long, true, "play music_play", [], null, rank) ?? [])]).toContain(
      "music_play",
    );
    const later = kept.at + CACHE_LIFETIME_MS + 1;
    const fresh = nextOffer(CORE, kept, later, long, false, "play music_play", [], null, rank);
    expect([...(fresh ?? [])].sort()).toEqual(["files_read", "memory_search", "music_play", "tools_find"]);
    expect(nextOffer(CORE, undefined, now, long, false, "hi", [], null, rank)).toEqual(
      new Set(["memory_search", "tools_find", "files_read"]),
    );
  });

  test("is chosen afresh while the conversation is too short for a provider to cache", () => {
    const now = kept.at + 60_000;
    const short = nextOffer(CORE, kept, now, MIN_CACHED_TOKENS - 1, false, "play music_play", [], null, rank);
    expect([...(short ?? [])]).toContain("music_play");
  });

  test("a short narrowed list is offered whole, kept or not", () => {
    expect(nextOffer(CORE, kept, kept.at, MIN_CACHED_TOKENS, false, "x", [], new Set(["echo_text"]), rank)).toBeNull();
  });
});

describe("the core of every offer", () => {
  const tool = (plugin: string, name: string, core: boolean, local = false) =>
    ({
      plugin,
      def: { name, ...(core ? { core } : {}) },
      ...(local ? { local: {} } : {}),
    }) as unknown as RegisteredTool;

  test("is what the kernel's and built-in plugins' definitions say is core; an installed plugin's claim is ignored", () => {
    const tools = [
      tool("kernel", "memory_search", true, true),
      tool("files", "files_read", true),
      tool("files", "files_write", false),
      tool("weather", "weather_now", true),
    ];
    expect(coreTools(tools, (p) => p === "files")).toEqual(["memory_search", "files_read"]);
  });
});
