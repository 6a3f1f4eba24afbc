/**
 * Scheduled backups (src/kernel/backup-schedule.ts): due every_hours after the last one (a backup
 * by hand counts, a restart does not reset it), named homed-YYYYMMDD-HHMMSS, the oldest beyond
 * `keep` removed and nothing else; a relative dir is refused with a logged reason; the child that
 * takes it is the real `homed backup`.
 */
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BackupSchedule, backupName, beyondKeep, runBackupChild } from "../../src/kernel/backup-schedule.ts";
import { BACKUP_STATE, MANIFEST } from "../../src/kernel/backup.ts";
import { HOMED, run, tempDir } from "../harness/binary.ts";

const HOUR = 3_600_000;

function logSink() {
  const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) => lines.push({ level, msg, fields });
  const log = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error"), with: () => log };
  return { log: log as never, lines };
}

test("due every_hours after the last backup, then named by time; the oldest beyond keep go, other folders stay", async () => {
  using data = tempDir();
  using out = tempDir();
  let now = Date.UTC(2026, 11, 7, 9, 30, 0);
  const cfg = { dir: out.path, every_hours: 24, keep: 2, secrets: false };
  const taken: string[] = [];
  const { log } = logSink();
  const s = new BackupSchedule({
    dataDir: data.path,
    config: () => cfg,
    log,
    now: () => now,
    run: async (dest) => {
      taken.push(dest);
      mkdirSync(dest, { recursive: true });
      writeFileSync(join(dest, MANIFEST), "{}");
      writeFileSync(join(data.path, BACKUP_STATE), JSON.stringify({ at: now, ok: true, dest }));
    },
  });
  // None yet: due a minute after start.
  expect(s.nextDue()).toBe(now + 60_000);
  mkdirSync(join(out.path, "my-own-stuff"));
  for (let day = 0; day < 4; day++) {
    await s.runOnce();
    expect(s.nextDue()).toBe(now + 24 * HOUR);
    now += 24 * HOUR;
  }
  expect(taken.map((d) => d.slice(out.path.length + 1))).toEqual([
    "homed-20261207-093000",
    "homed-20261208-093000",
    "homed-20261209-093000",
    "homed-20261210-093000",
  ]);
  expect(readdirSync(out.path).sort()).toEqual(["homed-20261209-093000", "homed-20261210-093000", "my-own-stuff"]);
  expect(backupName(Date.UTC(2027, 0, 2, 3, 4, 5))).toBe("homed-20270102-030405");
  // A folder without a manifest (a backup that never finished) is not counted or removed.
  mkdirSync(join(out.path, "homed-20200101-000000"));
  expect(beyondKeep(out.path, 2)).toEqual([]);
  cfg.dir = "";
  expect(s.nextDue()).toBeNull();
  s.stop();
});

test("a relative dir is refused with its reason in the log, and nothing runs", async () => {
  using data = tempDir();
  const { log, lines } = logSink();
  let ran = false;
  const s = new BackupSchedule({
    dataDir: data.path,
    config: () => ({ dir: "backups", every_hours: 1, keep: 3, secrets: false }),
    log,
    run: async () => {
      ran = true;
    },
  });
  await s.runOnce();
  expect(ran).toBe(false);
  expect(lines.find((l) => l.level === "error")?.fields?.err).toContain("absolute path");
});

test("the child is the real homed backup: a checked backup, and its refusal as the error", async () => {
  using data = tempDir();
  using out = tempDir();
  expect((await run([HOMED, "initconfig", "-data", data.path])).exitCode).toBe(0);
  // A data folder with a database: what a daemon leaves.
  const started = await run([HOMED, "recall", "-data", data.path, "-stdio"], { stdin: "" });
  expect(started.exitCode).toBe(0);
  await runBackupChild([HOMED], data.path, join(out.path, "homed-20261207-000000"), false);
  expect(existsSync(join(out.path, "homed-20261207-000000", MANIFEST))).toBe(true);
  expect(existsSync(join(out.path, "homed-20261207-000000", "config.toml"))).toBe(true);
  await expect(runBackupChild([HOMED], data.path, join(out.path, "homed-20261207-000000"), false)).rejects.toThrow(
    "not an empty folder",
  );
});
