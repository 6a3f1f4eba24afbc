/**
 * `sudo homed status` finds the system service (issue 45): without -data or $HOMED_DATA, a client
 * command that talks to the daemon uses the default data dir when a daemon listens there, else
 * the service's (/var/lib/homed; $HOMED_SERVICE_DATA here) when one listens there and this user
 * may reach it; when neither runs, "not running" names the default dir and, if the service's
 * socket is there but out of reach, where the service runs.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOMED, run, tempDir } from "../harness/binary.ts";
import { startDaemon } from "../harness/daemon.ts";

test("status, open and chat without -data reach the system service's daemon; -data and HOMED_DATA still win", async () => {
  using service = tempDir();
  using home = tempDir();
  await using d = await startDaemon(service.path);
  const env = { HOME: home.path, HOMED_SERVICE_DATA: service.path };
  const st = await run([HOMED, "status"], { env });
  expect(st.exitCode).toBe(0);
  expect(st.stdout).toContain(`data     ${service.path}`);
  const link = await run([HOMED, "open", "-print"], { env });
  expect(link.exitCode).toBe(0);
  expect(link.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
  // An explicit folder is never second-guessed.
  const other = await run([HOMED, "status", "-data", home.path], { env });
  expect(other.exitCode).not.toBe(0);
  expect(other.stderr).toContain(`no control socket at ${home.path}/homed.sock`);
  expect(other.stderr).toContain(`the system service runs on ${service.path}`);
  void d;
});

test("with no daemon anywhere, status says the default folder's daemon is not running", async () => {
  using home = tempDir();
  using nothing = tempDir();
  const st = await run([HOMED, "status"], { env: { HOME: home.path, HOMED_SERVICE_DATA: nothing.path } });
  expect(st.exitCode).not.toBe(0);
  expect(st.stderr).toContain(`no control socket at ${home.path}/.local/share/homed/homed.sock`);
  expect(st.stderr).not.toContain("system service");
});

test("homed reload re-reads config.toml and says what is in force now and what needs a restart", async () => {
  using dir = tempDir();
  await using d = await startDaemon(dir.path);
  const same = await run([HOMED, "reload", "-data", dir.path]);
  expect(same.exitCode).toBe(0);
  expect(same.stdout).toBe("reloaded: nothing changed that applies now\n");
  writeFileSync(join(dir.path, "config.toml"), "[agent]\nmax_iterations = 7\n[store]\nbusy_timeout_ms = 9000\n");
  const changed = await run([HOMED, "reload", "-data", dir.path]);
  expect(changed.stdout).toBe("reloaded: agent.max_iterations in force now; needs a restart: store.busy_timeout_ms\n");
  writeFileSync(join(dir.path, "config.toml"), "[agent]\nmax_iterations = -1\n");
  const bad = await run([HOMED, "reload", "-data", dir.path]);
  expect(bad.exitCode).toBe(1);
  expect(bad.stderr).toContain("the configuration was not reloaded");
  expect(bad.stderr).toContain("max_iterations");
  void d;
});
