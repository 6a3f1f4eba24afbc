/**
 * `homed backup` and `homed restore` (src/kernel/backup.ts) as a person runs them: a backup of a
 * data folder whose daemon is running, checked; secrets left out unless asked; a damaged copy
 * refused with what is wrong; a restore only into an empty folder, never over a live one; and the
 * restored folder's daemon recalls what was told before the backup, across conversations; a backup
 * of an older schema is migrated by the daemon that starts on it.
 */
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOMED, run, tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { MIGRATIONS, SCHEMA_VERSION } from "../../src/store/migrations.ts";

const sent = (body: Record<string, unknown>) => JSON.stringify(body.messages ?? []);

test("a running daemon's folder is backed up, checked, restored into an empty folder only, and the restored daemon remembers", async () => {
  using data = tempDir();
  using out = tempDir();
  const dest = join(out.path, "backup-1");
  const bytes = new TextEncoder().encode("a picture's bytes, stored once by content");
  const sha = createHash("sha256").update(bytes).digest("hex");
  {
    await using rig = await startAgentRig(data.path, { plugin: false });
    rig.llm.script([{ text: "ok, noted." }, { text: "Sure." }]);
    expect((await rig.chat("My bike is a red Gazelle with a wicker basket.", { conv: "garage" })).exitCode).toBe(0);
    expect((await rig.chat("Write a haiku about autumn rain.", { conv: "poems" })).exitCode).toBe(0);
    mkdirSync(join(data.path, "blocks", sha.slice(0, 2)), { recursive: true });
    writeFileSync(join(data.path, "blocks", sha.slice(0, 2), sha), bytes);

    const b = await run([HOMED, "backup", "-data", data.path, dest]);
    expect(b.stderr).toBe("");
    expect(b.exitCode).toBe(0);
    expect(b.stdout).toMatch(
      /^backed up .* to .*backup-1: \d+ events in 2 conversations, .*checked \(secrets left out/,
    );
    const manifest = JSON.parse(readFileSync(join(dest, "homed-backup.json"), "utf8"));
    const paths = manifest.files.map((f: { path: string }) => f.path);
    expect(paths).toContain("homed.db");
    expect(paths).toContain(`blocks/${sha.slice(0, 2)}/${sha}`);
    expect(paths).toContain("llm.json");
    // The provider's key, the web login token and what the daemon holds open stay behind.
    for (const p of ["secrets.json", "web-token", "homed.lock", "homed.sock", "homed.db-wal"])
      expect(paths).not.toContain(p);
    expect(existsSync(join(data.path, "secrets.json"))).toBe(true);
    expect(manifest.counts.events).toBeGreaterThanOrEqual(4);

    // The same again into a folder that holds something: refused, nothing written.
    const again = await run([HOMED, "backup", "-data", data.path, dest]);
    expect(again.exitCode).not.toBe(0);
    expect(again.stderr).toContain("not an empty folder");
    // Into the data folder itself: refused.
    const within = await run([HOMED, "backup", "-data", data.path, join(data.path, "bk")]);
    expect(within.exitCode).not.toBe(0);
    expect(within.stderr).toContain("inside the data folder");

    // A live data folder is never restored over.
    const over = await run([HOMED, "restore", "-data", data.path, dest]);
    expect(over.exitCode).not.toBe(0);
    expect(over.stderr).toContain("restore never overwrites one");
    // `homed status` tells of the last backup.
    const st = await run([HOMED, "status", "-data", data.path]);
    expect(st.stdout).toMatch(/backup {3}last backup .* UTC to .*backup-1: ok \(\d+ events/);
  }

  const check = await run([HOMED, "restore", "-check", dest]);
  expect(check.exitCode).toBe(0);
  expect(check.stdout).toContain("checks out");

  // A damaged copy: a block whose bytes changed is named, and nothing is restored from it.
  const damaged = join(out.path, "damaged");
  cpSync(dest, damaged, { recursive: true });
  writeFileSync(join(damaged, "blocks", sha.slice(0, 2), sha), "something else");
  const bad = await run([HOMED, "restore", "-check", damaged]);
  expect(bad.exitCode).not.toBe(0);
  expect(bad.stderr).toContain(`blocks/${sha.slice(0, 2)}/${sha}`);
  using lost = tempDir();
  const refused = await run([HOMED, "restore", "-data", join(lost.path, "new"), damaged]);
  expect(refused.exitCode).not.toBe(0);
  expect(existsSync(join(lost.path, "new"))).toBe(false);

  using restored = tempDir();
  const target = join(restored.path, "home");
  const r = await run([HOMED, "restore", "-data", target, dest]);
  expect(r.stderr).toBe("");
  expect(r.exitCode).toBe(0);
  expect(r.stdout).toContain("the backup has no secrets");
  expect(readFileSync(join(target, "blocks", sha.slice(0, 2), sha))).toEqual(Buffer.from(bytes));

  // The restored folder runs; its provider key is set again, as the restore said.
  await using rig = await startAgentRig(target, { plugin: false });
  rig.llm.script([{ text: "I don't know." }]);
  expect((await rig.chat("What colour is my bicycle?", { conv: "later" })).exitCode).toBe(0);
  expect(sent(rig.llm.requests.at(-1)?.body ?? {})).toContain("red Gazelle");
});

test("a backup from an older homed (an older schema) restores, and the daemon migrates it when it starts", async () => {
  using data = tempDir();
  using out = tempDir();
  using restored = tempDir();
  // A data folder as the homed before the last migration left it, with a turn in it.
  const db = new Database(join(data.path, "homed.db"), { create: true });
  for (const m of MIGRATIONS.slice(0, -1)) {
    db.exec(m.sql);
    m.run?.(db, { imageTagChannels: [] });
    db.exec(`PRAGMA user_version = ${m.version}`);
  }
  db.query("INSERT INTO events (ts, conv, kind, actor, untrusted, mark, body) VALUES (?, ?, ?, ?, 0, NULL, ?)").run(
    Date.now(),
    "old",
    "user-message",
    "user",
    JSON.stringify({ turn: "t1", text: "The spare key is under the blue flowerpot." }),
  );
  db.close();
  const older = SCHEMA_VERSION - 1;

  const dest = join(out.path, "old");
  expect((await run([HOMED, "backup", "-data", data.path, dest])).exitCode).toBe(0);
  expect(JSON.parse(readFileSync(join(dest, "homed-backup.json"), "utf8")).schemaVersion).toBe(older);
  const r = await run([HOMED, "restore", "-data", join(restored.path, "home"), dest]);
  expect(r.exitCode).toBe(0);
  expect(r.stdout).toContain(
    `its database (schema ${older}) is brought up to schema ${SCHEMA_VERSION} when the daemon starts`,
  );

  await using rig = await startAgentRig(join(restored.path, "home"), { plugin: false });
  const st = await rig.status();
  expect((st.store as { schemaVersion: number }).schemaVersion).toBe(SCHEMA_VERSION);
  const found = await run([HOMED, "status", "-data", join(restored.path, "home")]);
  expect(found.stdout).toContain(`schema v${SCHEMA_VERSION}, 1 events`);
});
