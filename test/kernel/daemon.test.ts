import { describe, expect, test } from "bun:test";
import { SCHEMA_VERSION } from "../../src/store/migrations.ts";
import { Database } from "bun:sqlite";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { HOMED, WAITER, run, tempDir } from "../harness/binary.ts";
import { spawnDaemon, startDaemon } from "../harness/daemon.ts";

describe("daemon lifecycle", () => {
  test("creates its data dir, database, socket and logs, and answers status", async () => {
    using dir = tempDir();
    const data = join(dir.path, "ha");
    await using d = await startDaemon(data);
    expect(statSync(data).mode & 0o777).toBe(0o700);
    expect(statSync(join(data, "homed.sock")).isSocket()).toBe(true);
    expect(statSync(join(data, "homed.sock")).mode & 0o777).toBe(0o600);
    expect(statSync(join(data, "homed.db")).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(data, "homed.lock"), "utf8").trim()).toBe(String(d.proc.pid));
    expect(readFileSync(join(data, "logs", "homed.log"), "utf8")).toContain('msg="homed ready"');

    const st = await run([HOMED, "status", "-data", data, "-json"]);
    expect(st.exitCode).toBe(0);
    const body = JSON.parse(st.stdout);
    expect(body.pid).toBe(d.proc.pid);
    expect(body.dataDir).toBe(data);
    expect(body.store.schemaVersion).toBe(SCHEMA_VERSION);
    expect(body.listen).toBe("127.0.0.1:0");

    const human = await run([WAITER, "-data", data, "status"]);
    expect(human.exitCode).toBe(0);
    expect(human.stdout).toContain(`pid ${d.proc.pid}`);
    expect(human.stdout).toContain(`schema v${SCHEMA_VERSION}`);

    expect(await d.stop()).toBe(0);
    expect(existsSync(join(data, "homed.sock"))).toBe(false);
    expect(d.stderr()).toContain('msg="homed stopping" reason=SIGTERM');
  });

  test("-listen and HOMED_LISTEN set the address; the flag wins", async () => {
    using dir = tempDir();
    await using d = await startDaemon(dir.path, {
      args: ["--listen", "127.0.0.2:0"],
      env: { HOMED_LISTEN: "127.0.0.3:0" },
    });
    const st = JSON.parse((await run([HOMED, "status", "-data", dir.path, "-json"])).stdout);
    expect(st.listen).toBe("127.0.0.2:0");
    await d.stop();
    await using e = await startDaemon(dir.path, { env: { HOMED_LISTEN: "127.0.0.3:0" } });
    expect(JSON.parse((await run([HOMED, "status", "-data", dir.path, "-json"])).stdout).listen).toBe("127.0.0.3:0");
    await e.stop();
  });

  test("a second daemon on the same data dir refuses, naming the holder's pid", async () => {
    using dir = tempDir();
    await using first = await startDaemon(dir.path);
    const second = spawnDaemon(dir.path);
    const code = await second.proc.exited;
    expect(code).toBe(75);
    expect(second.stderr()).toContain(`pid ${first.proc.pid}`);
    // The first is untouched.
    expect((await run([HOMED, "status", "-data", dir.path])).exitCode).toBe(0);
  });

  test("after kill -9 a new daemon takes over the data dir (no stale lock or socket)", async () => {
    using dir = tempDir();
    const first = await startDaemon(dir.path);
    first.proc.kill("SIGKILL");
    await first.proc.exited;
    await using second = await startDaemon(dir.path);
    const st = JSON.parse((await run([HOMED, "status", "-data", dir.path, "-json"])).stdout);
    expect(st.pid).toBe(second.proc.pid);
  });

  test("a database written by a newer homed is refused with a clear message", async () => {
    using dir = tempDir();
    const db = new Database(join(dir.path, "homed.db"), { create: true });
    db.exec("PRAGMA user_version = 999");
    db.close();
    const d = spawnDaemon(dir.path);
    expect(await d.proc.exited).toBe(1);
    expect(d.stderr()).toContain("schema version 999");
    expect(d.stderr()).toContain("newer homed");
  });

  test("a data dir path that is a file is a clear error", async () => {
    using dir = tempDir();
    const file = join(dir.path, "f");
    await Bun.write(file, "x");
    const d = spawnDaemon(file);
    expect(await d.proc.exited).toBe(1);
    expect(d.stderr()).toContain("data dir");
  });

  test("a -listen address another process holds makes the daemon exit 78 at start, naming the address", async () => {
    using dir = tempDir();
    const holder = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    try {
      const addr = `127.0.0.1:${holder.port}`;
      const d = spawnDaemon(dir.path, { args: ["-listen", addr] });
      expect(await d.proc.exited).toBe(78);
      const lines = d.stderr().trim().split("\n");
      expect(lines.at(-1)).toMatch(new RegExp(`level=error msg="cannot listen on ${addr}: address already in use`));
      expect(d.stderr()).not.toContain("homed ready");
      // Nothing was left running or held: the same data dir starts at once on a free port.
      await using again = await startDaemon(dir.path);
      expect(again.proc.exitCode).toBeNull();
    } finally {
      holder.stop(true);
    }
  });
});
