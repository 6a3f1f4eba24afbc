/**
 * The fetch plugin in dist/homed, as a user runs it: a scripted model calls fetch_url on a local
 * page (allowed by allow_hosts, the tools allowed by [approval]) and fetch_search on a fake Brave
 * API whose key the kernel takes from DATA/secrets.json; the lazy plugin starts on that first call.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOMED, run, tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { installBunPlugin } from "../harness/plugins.ts";
import { poll } from "../harness/poll.ts";
import { startSite } from "./fetch-site.ts";

const KEY = "BSA-daemon-key-0123456789";

describe("fetch plugin in the daemon", () => {
  test("fetch_url reads a local page and fetch_search uses the key from secrets.json", async () => {
    using dir = tempDir();
    const braveSeen: { token: string | null; q: string | null }[] = [];
    using site = startSite("127.0.0.1", {
      "/brave": (req) => {
        braveSeen.push({ token: req.headers.get("x-subscription-token"), q: new URL(req.url).searchParams.get("q") });
        return Response.json({
          web: { results: [{ title: "Tides", url: "https://tides.example.net/", description: "Tide <b>tables</b>" }] },
        });
      },
    });
    await Bun.write(
      join(dir.path, "config.toml"),
      `[tools.fetch]\nallow_hosts = ["127.0.0.1"]\nsearch_provider = "brave"\nsearch_url = "${site.url}/brave"\n` +
        `search_key_secret = "brave"\n\n[approval]\nallow = ["fetch_*"]\n`,
    );
    writeFileSync(join(dir.path, "secrets.json"), JSON.stringify({ values: { brave: KEY, other: "not-for-fetch" } }), {
      mode: 0o600,
    });
    // An external plugin reading the same section must not get the key.
    const peeked = join(dir.path, "peek.json");
    installBunPlugin(dir.path, "peek", "config-peek.ts", {}, ["tools", peeked]);
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const offered = (await rig.status()).tools as { name: string; risk?: string }[];
    expect(offered.filter((t) => t.name.startsWith("fetch_")).map((t) => [t.name, t.risk])).toEqual([
      ["fetch_search", "network"],
      ["fetch_url", "network"],
    ]);

    rig.llm.script([
      {
        toolCalls: [
          { name: "fetch_url", arguments: { url: `${site.url}/article` } },
          { name: "fetch_search", arguments: { query: "tide tables" } },
        ],
      },
      { text: "read it" },
    ]);
    // The person names the search: its words are theirs, so it runs unasked after the page.
    const r = await rig.chat("read the page, then search for tide tables");
    expect(r.exitCode).toBe(0);
    expect(r.stderr).not.toContain("? allow");
    const sent = (rig.llm.requests[1]!.body as { messages: { role: string; content: string }[] }).messages
      .filter((m) => m.role === "tool")
      .map((m) => m.content);
    expect(sent[0]).toStartWith("[web content from 127.0.0.1:");
    expect(sent[0]).toContain("# Why tides follow the moon");
    expect(sent[0]).toContain(`[1] ${site.url}/physics/gravity?x=1`);
    expect(sent[0]).not.toContain("SIDEBAR TEXT");
    expect(sent[1]).toContain("1. Tides\n   https://tides.example.net/\n   Tide tables");
    expect(braveSeen).toEqual([{ token: KEY, q: "tide tables" }]);
    // The page request said who asked.
    expect(site.seen.find((s) => s.path === "/article")).toBeDefined();
    // The key reached the search API and nothing else: not the log, not another plugin.
    expect(rig.daemon.stderr()).not.toContain(KEY);
    const other = await poll(
      async () => (existsSync(peeked) ? readFileSync(peeked, "utf8") : ""),
      (t) => t !== "",
      { what: "the external plugin's view of [tools]" },
    );
    expect(JSON.parse(other).fetch).toMatchObject({ search_provider: "brave", search_key_secret: "brave" });
    expect(other).not.toContain('search_key"');
    expect(other).not.toContain(KEY);

    // A loopback address allow_hosts does not list is still refused.
    rig.llm.script([
      { toolCalls: [{ name: "fetch_url", arguments: { url: `http://127.0.0.2:${site.port}/article` } }] },
      { text: "refused" },
    ]);
    await rig.chat("try another loopback address");
    const refused = (rig.llm.requests[3]!.body as { messages: { role: string; content: string }[] }).messages.at(-1)!;
    expect(refused.content).toContain("error: fetch_url: 127.0.0.2 is not a public address (loopback)");
  }, 60_000);

  test("homed tools list shows both tools as network without a daemon", async () => {
    const list = JSON.parse((await run([HOMED, "tools", "list", "-json"])).stdout) as {
      name: string;
      plugin: string;
      risk: string;
    }[];
    expect(list.filter((t) => t.plugin === "fetch")).toEqual([
      expect.objectContaining({ name: "fetch_search", risk: "network" }),
      expect.objectContaining({ name: "fetch_url", risk: "network" }),
    ]);
  });
});
