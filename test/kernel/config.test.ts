import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOMED, run, tempDir } from "../harness/binary.ts";
import { spawnDaemon, startDaemon } from "../harness/daemon.ts";
import { CONFIG_TEMPLATE, ConfigSchema, loadConfig } from "../../src/kernel/config/config.ts";
import * as v from "valibot";

/** Start a daemon expected to fail; return its exit code and stderr. */
async function failing(data: string, opts: Parameters<typeof spawnDaemon>[1] = {}) {
  const d = spawnDaemon(data, opts);
  const code = await d.proc.exited;
  return { code, stderr: d.stderr() };
}

describe("config.toml", () => {
  test("the template initconfig writes means exactly the defaults, and spells out every section", () => {
    const parsed = Bun.TOML.parse(CONFIG_TEMPLATE) as Record<string, unknown>;
    expect(v.parse(ConfigSchema, parsed)).toEqual(v.parse(ConfigSchema, {}));
    // Every setting is written out, except mcp.servers (an array of tables, shown commented).
    const { mcp: _mcp, ...rest } = v.parse(ConfigSchema, {}) as Record<string, unknown>;
    expect(parsed).toEqual(rest);
  });

  test("[memory] recall_untrusted is false unless set, and must be a boolean", () => {
    using dir = tempDir();
    const file = join(dir.path, "config.toml");
    expect(loadConfig({ file, env: {} }).memory.recall_untrusted).toBe(false);
    writeFileSync(file, "[memory]\nrecall_untrusted = true\n");
    expect(loadConfig({ file, env: {} }).memory.recall_untrusted).toBe(true);
    writeFileSync(file, '[memory]\nrecall_untrusted = "yes"\n');
    expect(() => loadConfig({ file, env: {} })).toThrow("memory.recall_untrusted: must be true or false");
  });

  test("whole-number settings refuse fractions and values outside their range", () => {
    using dir = tempDir();
    const file = join(dir.path, "config.toml");
    writeFileSync(file, "[limits]\nrss_check_ms = 99\n");
    expect(() => loadConfig({ file, env: {} })).toThrow("limits.rss_check_ms: must be at least 100");
    writeFileSync(file, "[limits]\nrss_check_ms = 3600001\n");
    expect(() => loadConfig({ file, env: {} })).toThrow("limits.rss_check_ms: must be at most 3600000");
    writeFileSync(file, "[limits]\nrss_check_ms = 150.5\n");
    expect(() => loadConfig({ file, env: {} })).toThrow("limits.rss_check_ms: must be an integer");
    writeFileSync(file, "[limits]\nrss_check_ms = 100\n");
    expect(loadConfig({ file, env: {} }).limits.rss_check_ms).toBe(100);
  });

  test("HOMED_<SECTION>_<KEY> overrides numbers, strings and lists", () => {
    using dir = tempDir();
    const cfg = loadConfig({
      file: join(dir.path, "missing.toml"),
      env: {
        HOMED_LISTEN: "[::1]:81",
        HOMED_LOG_LEVEL: "debug",
        HOMED_STORE_BUSY_TIMEOUT_MS: "250",
        HOMED_PLUGINS_DISABLED: "web, qq",
        HOMED_PLUGINS_SEGMENT_MB: "8",
      },
    });
    expect(cfg.listen).toBe("[::1]:81");
    expect(cfg.log.level).toBe("debug");
    expect(cfg.store.busy_timeout_ms).toBe(250);
    expect(cfg.plugins.disabled).toEqual(["web", "qq"]);
    expect(cfg.plugins.segment_mb).toBe(8);
    expect(cfg.plugins.ping_interval_ms).toBe(10_000);
    for (const name of ["HOMED_LISTEN", "HOMED_LOG_LEVEL", "HOMED_STORE_BUSY_TIMEOUT_MS", "HOMED_PLUGINS_DISABLED"])
      expect(CONFIG_TEMPLATE).toContain(name);
  });

  test("a bad value stops the daemon with 78, naming the field and the reason", async () => {
    using dir = tempDir();
    writeFileSync(join(dir.path, "config.toml"), '[log]\nlevel = "loud"\n');
    const r = await failing(dir.path);
    expect(r.code).toBe(78);
    expect(r.stderr).toContain("log.level");
    expect(r.stderr).toContain("must be one of debug, info, warn, error");
  });

  test("a value of the wrong type, an unknown key and broken TOML are each exit 78", async () => {
    using dir = tempDir();
    const file = join(dir.path, "config.toml");
    writeFileSync(file, '[store]\nbusy_timeout_ms = "soon"\n');
    let r = await failing(dir.path);
    expect(r.code).toBe(78);
    expect(r.stderr).toContain("store.busy_timeout_ms: must be a number");

    writeFileSync(file, 'lisen = "127.0.0.1:1"\n');
    r = await failing(dir.path);
    expect(r.code).toBe(78);
    expect(r.stderr).toContain("lisen");

    writeFileSync(file, "listen = \n");
    r = await failing(dir.path);
    expect(r.code).toBe(78);
    expect(r.stderr).toContain("not valid TOML");
  });

  test("a settings.json that cannot be read as settings is exit 78 too, naming the file and the line", async () => {
    using dir = tempDir();
    const file = join(dir.path, "settings.json");
    writeFileSync(file, Buffer.from([0xff, 0x7b]));
    let r = await failing(dir.path);
    expect(r.code).toBe(78);
    expect(r.stderr).toContain(`${file}: line 1: not UTF-8 (byte 0)`);
    writeFileSync(file, '{\n  "approval_deny": ["shell_*"],\n  "approval_allow": [files_write]\n}\n');
    r = await failing(dir.path);
    expect(r.code).toBe(78);
    expect(r.stderr).toContain(`${file}: line 3, column 22: not valid JSON`);
    writeFileSync(file, '{\n  "approval_deny": "shell_*"\n}\n');
    r = await failing(dir.path);
    expect(r.code).toBe(78);
    expect(r.stderr).toContain(`${file}: line 2: `);
  });

  test("a bad environment override or flag names where it came from", async () => {
    using dir = tempDir();
    let r = await failing(dir.path, { env: { HOMED_LOG_LEVEL: "chatty" } });
    expect(r.code).toBe(78);
    expect(r.stderr).toContain("HOMED_LOG_LEVEL");
    r = await failing(dir.path, { args: ["-listen", "localhost:99999"] });
    expect(r.code).toBe(78);
    expect(r.stderr).toContain("flag -listen");
    expect(r.stderr).toContain("HOST:PORT");
  });

  test("an empty file and a full template both start the daemon", async () => {
    using dir = tempDir();
    writeFileSync(join(dir.path, "config.toml"), "");
    const a = await startDaemon(dir.path);
    await a.stop();
    expect((await run([HOMED, "initconfig", "-data", dir.path, "-force"])).exitCode).toBe(0);
    await using b = await startDaemon(dir.path);
    expect(b.stderr()).toContain("listen=127.0.0.1:0");
  });
});
