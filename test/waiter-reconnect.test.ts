/**
 * waiter outlives its daemon: when dist/homed stops — idle, or in the middle of a reply — the
 * TUI says the connection is lost and keeps trying; when a daemon is back on the same data dir
 * it says so, reloads the conversation and takes the next message as before.
 */
import { describe, expect, test } from "bun:test";
import { WAITER, tempDir } from "./harness/binary.ts";
import { startAgentRig } from "./harness/agent-daemon.ts";
import { startDaemon, webUrlOf } from "./harness/daemon.ts";
import { startTmux } from "./harness/tmux.ts";

const TERM_ENV = { TERM: "xterm-256color", LANG: "C.UTF-8" };
const show = (what: string, screen: string) =>
  void (process.env.WAITER_SHOW_SCREENS === "1" && console.log(`--- ${what}\n${screen}\n---`));

describe("waiter across a daemon restart", () => {
  test("shows the lost connection, reconnects to the restarted daemon and resumes the conversation", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    await using t = await startTmux(dir.path, [WAITER, "-data", rig.data, "-conv", "stay"], TERM_ENV);
    await t.waitFor("● connected", "the first connection");
    rig.llm.script([{ text: "before the restart" }]);
    await t.type("one");
    await t.press("Enter");
    await t.waitFor(/before the restart[\s\S]*conversation: 1 turn\]/);

    // The daemon stops while a reply is streaming.
    rig.llm.script([{ text: "cut off in the middle", stall: true }]);
    await t.type("two");
    await t.press("Enter");
    await t.waitFor(/│cut/, "the reply's first chunk");
    expect(await rig.daemon.stop()).toBe(0);
    let s = await t.waitFor(`waiter · ${rig.data} · stay`, "the title bar");
    s = await t.waitFor(/○ reconnecting…$/m, "the title bar to say the link is lost, and nothing stale about plugins");
    expect(s).toContain("lost the connection to homed: reconnecting…");
    expect(s).toContain("homed is not reachable: reconnecting…");
    // Typing is kept, sending waits for the link.
    await t.type("three");
    await t.press("Enter");
    show("the link lost", await t.waitFor("not connected: wait for the reconnect", "the refusal to send"));
    expect(await t.exited()).toEqual({ dead: false, status: null });

    // A daemon comes back on the same data dir: waiter finds it by itself.
    rig.llm.resume();
    await using again = await startDaemon(rig.data);
    s = await t.waitFor(`reconnected to homed at ${rig.data}`, "the reconnect", 20_000);
    expect(s).toContain("● connected");
    // The conversation was reloaded from the log: the first turn is there.
    expect(s).toContain("› one");
    expect(s).toContain("before the restart");

    rig.llm.script([{ text: "after the restart" }]);
    await t.press("Enter");
    s = await t.waitFor(/after the restart[\s\S]*\[done; .*\]/, "a reply from the new daemon");
    expect(s).toMatch(/› three/);
    show("reconnected", s);
    await t.press("C-d");
    expect(await t.waitExit()).toBe(0);
    await again.stop();
  }, 60_000);
});

describe("waiter -connect across a restart, and with nothing to connect to", () => {
  test("the remote link notices the web listener gone, and comes back when it is", async () => {
    using dir = tempDir();
    // A fixed port, so the restarted daemon listens where the first one did.
    const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = probe.port;
    probe.stop(true);
    const listen = `127.0.0.1:${port}`;
    await using rig = await startAgentRig(dir.path, { plugin: false, env: { HOMED_LISTEN: listen } });
    // The daemon is ready before its web plugin listens; a waiter with nothing to reach exits 69.
    await webUrlOf(rig.daemon);
    await using t = await startTmux(dir.path, [WAITER, "-connect", `http://${listen}`, "-conv", "far"], TERM_ENV);
    await t.waitFor("● connected", "the first connection");
    rig.llm.script([{ text: "over the web" }]);
    await t.type("one");
    await t.press("Enter");
    await t.waitFor(/over the web[\s\S]*conversation: 1 turn\]/);

    expect(await rig.daemon.stop()).toBe(0);
    await t.waitFor("lost the connection to homed: reconnecting…", "the status poll to notice");
    await using again = await startDaemon(rig.data, { env: { HOMED_LISTEN: listen } });
    const s = await t.waitFor(`reconnected to homed at http://${listen}`, "the reconnect", 20_000);
    expect(s).toContain("› one");
    rig.llm.script([{ text: "and again" }]);
    await t.type("two");
    await t.press("Enter");
    await t.waitFor(/and again[\s\S]*conversation: 2 turns\]/);
    await t.press("C-d");
    expect(await t.waitExit()).toBe(0);
    await again.stop();
  }, 60_000);

  test("quitting while the remote server no longer answers ends the waiter at once", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    // Between the waiter and the web listener: a server that, once frozen, takes requests and
    // never answers them, as a machine whose network went away does.
    let frozen = false;
    const target = await webUrlOf(rig.daemon);
    using proxy = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      idleTimeout: 0,
      fetch: (req) => {
        if (frozen) return new Promise<Response>(() => {});
        const url = new URL(req.url);
        return fetch(new URL(url.pathname + url.search, target), {
          method: req.method,
          headers: req.headers,
          body: req.body,
        });
      },
    });
    await using t = await startTmux(dir.path, [WAITER, "-connect", `http://127.0.0.1:${proxy.port}`], TERM_ENV);
    await t.waitFor("● connected", "the first connection");
    frozen = true;
    // A status poll goes out every 2 s: wait until one is left hanging.
    await Bun.sleep(2_500);
    const asked = Date.now();
    await t.press("C-d");
    expect(await t.waitExit("the waiter to quit")).toBe(0);
    expect(Date.now() - asked).toBeLessThan(3_000);
  }, 30_000);

  test("with no daemon at the start the full-screen chat says so in one line and exits 69", async () => {
    using dir = tempDir();
    await using t = await startTmux(dir.path, [WAITER, "-data", dir.path], TERM_ENV);
    expect(await t.waitExit()).toBe(69);
    const shown = (await t.screen()).split("\n").filter((l) => l.trim() && !l.startsWith("Pane is dead"));
    expect(shown).toEqual([
      `waiter: homed is not running on ${dir.path} (no control socket at ${dir.path}/homed.sock)`,
      "[exit 69]",
    ]);
  });
});
