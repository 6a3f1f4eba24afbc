/**
 * The arm64 build (make build-arm64, part of make test): an aarch64 ELF that really runs. The
 * arm64 daemon is started under qemu-user-static with the arm64 shim, and the x64 client asks
 * it for its status; the arm64 waiter asks an x64 daemon (scripted model) a question with -p.
 * Then the arm64 daemon runs as on a board, its plugins started as itself (harness/arm64-userns.sh
 * registers qemu for aarch64 files in a private namespace), and its idle memory is reported.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { HOMED, ROOT, run, tempDir } from "./harness/binary.ts";
import { startAgentRig } from "./harness/agent-daemon.ts";
import { startDaemon } from "./harness/daemon.ts";
import { poll } from "./harness/poll.ts";

const ARM64 = join(ROOT, "dist/homed-linux-arm64");
const WAITER_ARM64 = join(ROOT, "dist/waiter-linux-arm64");
const QEMU = Bun.which("qemu-aarch64-static");
const EM_AARCH64 = 0xb7;

describe("arm64 build", () => {
  test("dist/homed-linux-arm64 is an aarch64 ELF executable", () => {
    const head = readFileSync(ARM64).subarray(0, 20);
    expect([...head.subarray(0, 4)]).toEqual([0x7f, 0x45, 0x4c, 0x46]);
    expect(head[4]).toBe(2); // 64-bit
    expect(head.readUInt16LE(18)).toBe(EM_AARCH64);
    expect(existsSync(join(ROOT, "dist/native/libhomed-shim-arm64.so"))).toBe(true);
  });

  // Emulation needs qemu-user-static, which make test installs (scripts/ensure-test-tools.sh);
  // without it this test fails and says so rather than skipping.
  test("runs under qemu: version, then a daemon the x64 client can ask", async () => {
    if (!QEMU) throw new Error("qemu-aarch64-static is missing: make test installs qemu-user-static as root");
    const qemu = [QEMU, "-L", "/usr/aarch64-linux-gnu", ARM64];
    const v = await run([...qemu, "version"]);
    expect(v.stdout).toContain("linux/arm64");
    using dir = tempDir();
    await using d = await startDaemon(dir.path, { bin: qemu, readyTimeoutMs: 60_000 });
    const st = JSON.parse((await run([HOMED, "status", "-data", dir.path, "-json"])).stdout);
    expect(st.arch).toBe("arm64");
    expect(st.pid).toBe(d.proc.pid);
    await d.stop();
    // jieba's aarch64 addon and dictionary are inside the arm64 binary.
    using other = tempDir();
    const r = await run([...qemu, "recall", "-stdio", "-data", other.path], {
      stdin:
        '{"op":"index","conv":"a","id":"t1","text":"我搬到了杭州"}\n{"op":"query","conv":"a","text":"杭州在哪","k":1}\n',
    });
    expect(r.stdout).toBe('{"ids":["t1"]}\n');
  }, 120_000);

  test("homed plugin new on arm64 vendors the SDK with the arm64 shim", async () => {
    if (!QEMU) throw new Error("qemu-aarch64-static is missing: make test installs qemu-user-static as root");
    using dir = tempDir();
    const folder = join(dir.path, "demo");
    const made = await run([QEMU, "-L", "/usr/aarch64-linux-gnu", ARM64, "plugin", "new", "demo", "-dir", folder]);
    expect(made.exitCode).toBe(0);
    const sdk = join(folder, "vendor/homed-plugin-sdk");
    const shims = readdirSync(sdk).filter((f) => f.startsWith("libhomed-shim-") && f.endsWith(".so"));
    expect(shims.length).toBe(1);
    const vendored = readFileSync(join(sdk, shims[0] as string));
    expect(vendored.readUInt16LE(18)).toBe(EM_AARCH64);
    expect(vendored.equals(readFileSync(join(ROOT, "dist/native/libhomed-shim-arm64.so")))).toBe(true);
  }, 60_000);

  test("the arm64 waiter runs under qemu: version, and -p against a local daemon", async () => {
    if (!QEMU) throw new Error("qemu-aarch64-static is missing: make test installs qemu-user-static as root");
    const head = readFileSync(WAITER_ARM64).subarray(0, 20);
    expect(head.readUInt16LE(18)).toBe(EM_AARCH64);
    const qemu = [QEMU, "-L", "/usr/aarch64-linux-gnu", WAITER_ARM64];
    const v = await run([...qemu, "version"]);
    expect(v.stdout).toMatch(/^waiter \S+ \(linux\/arm64\)\n$/);
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    rig.llm.script([{ text: "answered to an arm64 client" }]);
    const r = await run([...qemu, "-data", rig.data, "-p", "which arch asks?"]);
    expect(r).toEqual({ exitCode: 0, stdout: "answered to an arm64 client\n", stderr: "" });
  }, 60_000);

  // Issue 17's small-board figure, alongside the native one (test/dist/server-deb.test.ts): what
  // the arm64 daemon and its default plugins hold idle under qemu, the emulator's own memory
  // (its translated code) included — an upper bound for a board, not the board's figure.
  test("as on a board: the arm64 daemon starts its plugins as itself; idle memory under qemu", async () => {
    if (!QEMU) throw new Error("qemu-aarch64-static is missing: make test installs qemu-user-static as root");
    using dir = tempDir();
    const ns = join(dir.path, "ns");
    mkdirSync(ns);
    const data = join(dir.path, "data");
    const wrap = [
      "unshare",
      "-Urm",
      "--fork",
      "--kill-child=SIGKILL",
      join(ROOT, "test/harness/arm64-userns.sh"),
      ARM64,
    ];
    await using d = await startDaemon(data, { bin: wrap, env: { ARM64_NS_DIR: ns }, readyTimeoutMs: 60_000 });
    await d.waitFor(/msg="plugin state" component=supervisor plugin=web state=ready/, 60_000);
    const st = JSON.parse((await run([HOMED, "status", "-data", data, "-json"])).stdout) as {
      pid: number;
      arch: string;
      plugins: { name: string; pid: number | null; state: string }[];
    };
    expect(st.arch).toBe("arm64");
    const web = st.plugins.find((p) => p.name === "web");
    expect(web?.pid).toBeGreaterThan(0);
    // Idle: give the web plugin's start-up garbage a moment to be collected.
    await Bun.sleep(5_000);
    const rss = (pid: number) =>
      Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) / 1024;
    const pids = [st.pid, ...st.plugins.flatMap((p) => (p.pid ? [p.pid] : []))];
    // Each is the emulator running the arm64 binary (binfmt_misc's F flag, no -L needed).
    for (const pid of pids) expect(readFileSync(`/proc/${pid}/cmdline`, "utf8")).toContain("homed-linux-arm64");
    const total = pids.map(rss).reduce((a, b) => a + b, 0);
    console.log(`bench: dist.arm64_qemu_idle_rss_mb ${total.toFixed(1)} MiB`);
    expect(total).toBeGreaterThan(10);
    // unshare waits for its child and ignores SIGTERM itself: the daemon is told directly.
    process.kill(st.pid, "SIGTERM");
    await poll(
      () => d.proc.exitCode,
      (code) => code !== null,
      { what: "the arm64 daemon (and unshare) to exit on SIGTERM", timeoutMs: 60_000 },
    );
    expect(existsSync(join(data, "homed.sock"))).toBe(false);
  }, 180_000);
});
