/**
 * The memory cap ([limits] rss_mb). First through the daemon itself: a cap far below what any
 * daemon uses, and a lazy plugin started by hand, which the watchdog must stop while the one
 * warning appears once. Then the watchdog's policy with a moved-by-hand clock and scripted
 * samples: when it sheds, when it warns, that it warns once per excess, and that it says so when
 * memory is back under.
 */
import { describe, expect, test } from "bun:test";
import { connectUnixRpc } from "../../src/ipc/unix-rpc.ts";
import { RssWatchdog, type RssSample } from "../../src/kernel/rss-watchdog.ts";
import type { Logger } from "../../src/kernel/log.ts";
import type { StatusResult } from "../../src/protocol/control.ts";
import { tempDir } from "../harness/binary.ts";
import { startDaemon } from "../harness/daemon.ts";
import { FakeClock } from "../harness/fake-clock.ts";
import { installBunPlugin } from "../harness/plugins.ts";

const WARN =
  'level=warn msg="resident memory over [limits] rss_mb after stopping idle lazy plugins and collecting garbage"';
const count = (text: string, part: string) => text.split(part).length - 1;

describe("memory cap in the daemon", () => {
  test("over the cap, an idle lazy plugin is stopped and one warning is logged", async () => {
    using dir = tempDir();
    installBunPlugin(dir.path, "lazy", "echo.ts", { lazy: true });
    await using d = await startDaemon(dir.path, {
      env: { HOMED_LIMITS_RSS_MB: "1", HOMED_LIMITS_RSS_CHECK_MS: "100" },
    });
    const c = await connectUnixRpc(d.socket, { warn: () => {}, debug: () => {} });
    try {
      const lazy = async () =>
        ((await c.peer.request("status")) as StatusResult).plugins.find((p) => p.name === "lazy")!;
      expect((await lazy()).state).toBe("idle");
      await d.waitFor(WARN, 20_000);
      expect(d.stderr()).toMatch(
        /level=warn msg="resident memory over \[limits\] rss_mb[^\n]* rss_mb=\d+ limit_mb=1 kernel_mb=\d+ plugins_mb="web=\d+"/,
      );

      // Started by hand (a restart of an idle lazy plugin launches it), nothing in flight; again
      // and again until well past the 2 s the watchdog waits before it would warn a second time.
      const warnedAt = Date.now();
      let rounds = 0;
      for (; rounds < 2 || Date.now() - warnedAt < 6000; rounds++) {
        const started = (await c.peer.request("plugin.restart", { name: "lazy" })) as {
          state: string;
          pid: number | null;
        };
        expect(started.state).toBe("starting");
        // Poll the public state until the watchdog has stopped it again.
        for (const t0 = Date.now(); (await lazy()).state !== "idle"; await Bun.sleep(5)) {
          if (Date.now() - t0 > 20_000)
            throw new Error(`lazy not stopped: ${JSON.stringify(await lazy())}\n${d.stderr()}`);
        }
        expect((await lazy()).pid).toBeNull();
      }
      expect(
        count(d.stderr(), 'plugin=lazy state=stopping detail="stopped to give memory back ([limits] rss_mb)"'),
      ).toBe(rounds);
      // Many samples over the cap since the first warning, and many sheds: still one warning.
      expect(count(d.stderr(), WARN)).toBe(1);
      const web = ((await c.peer.request("status")) as StatusResult).plugins.find((p) => p.name === "web")!;
      expect(web.state).toBe("ready"); // not lazy: never stopped for memory
    } finally {
      c.close();
    }
    expect(await d.stop()).toBe(0);
  }, 60_000);
});

function recordingLog(lines: string[]): Logger {
  const log: Logger = {
    debug: () => {},
    info: (msg, f) => lines.push(`info ${msg} ${JSON.stringify(f ?? {})}`),
    warn: (msg, f) => lines.push(`warn ${msg} ${JSON.stringify(f ?? {})}`),
    error: (msg, f) => lines.push(`error ${msg} ${JSON.stringify(f ?? {})}`),
    raw: () => {},
    with: () => log,
  };
  return log;
}

describe("watchdog policy", () => {
  const MiB = 1024 * 1024;
  function setup(limitMb: number) {
    const clock = new FakeClock();
    const lines: string[] = [];
    let current: RssSample = { kernel: 100 * MiB, plugins: { web: 50 * MiB } };
    let lazyRunning = ["files"];
    const calls = { samples: 0, sheds: 0, gcs: 0 };
    const w = new RssWatchdog({
      limitMb,
      intervalMs: 10_000,
      settleMs: 2_000,
      clock,
      log: recordingLog(lines),
      sample: () => {
        calls.samples++;
        return current;
      },
      shedLazy: () => {
        calls.sheds++;
        const gone = lazyRunning;
        lazyRunning = [];
        return gone;
      },
      gc: () => void calls.gcs++,
    });
    w.start();
    return {
      clock,
      lines,
      calls,
      w,
      set: (kernel: number, web: number) => (current = { kernel: kernel * MiB, plugins: { web: web * MiB } }),
    };
  }
  const warns = (lines: string[]) => lines.filter((l) => l.startsWith("warn"));

  test("under the cap: samples only", () => {
    const t = setup(200);
    t.clock.advance(60_000);
    expect(t.calls).toEqual({ samples: 6, sheds: 0, gcs: 0 });
    expect(t.lines).toEqual([]);
  });

  test("over: shed and collect, look again after settling, warn once per excess", () => {
    const t = setup(200);
    t.set(180, 50);
    t.clock.advance(10_000);
    expect(t.calls).toMatchObject({ sheds: 1, gcs: 1 });
    expect(warns(t.lines)).toEqual([]); // the stopped plugins have not exited yet
    t.clock.advance(2_000);
    expect(warns(t.lines)).toHaveLength(1);
    expect(warns(t.lines)[0]).toContain('"rss_mb":230');
    expect(warns(t.lines)[0]).toContain('"limit_mb":200');
    expect(warns(t.lines)[0]).toContain('"plugins_mb":"web=50"');
    expect(warns(t.lines)[0]).toContain('"stopped":"files"');
    t.clock.advance(60_000); // six more samples over the cap
    expect(warns(t.lines)).toHaveLength(1);
    expect(t.calls.gcs).toBe(7);
    t.set(100, 50);
    t.clock.advance(10_000);
    expect(t.lines.filter((l) => l.startsWith("info resident memory back under"))).toHaveLength(1);
    t.set(300, 50);
    t.clock.advance(12_000);
    expect(warns(t.lines)).toHaveLength(2);
  });

  test("no warning when shedding brought memory under the cap", () => {
    const t = setup(200);
    t.set(180, 50);
    t.clock.advance(10_000);
    t.set(120, 50); // the lazy plugin exited, the collection gave memory back
    t.clock.advance(2_000);
    expect(t.lines).toEqual([]);
  });

  test("a cap of 0 never samples", () => {
    const t = setup(0);
    t.clock.advance(60_000);
    expect(t.calls.samples).toBe(0);
    expect(t.clock.pending()).toEqual([]);
  });
});
