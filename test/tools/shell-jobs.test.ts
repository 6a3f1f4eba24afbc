/**
 * shell_run's background job table (plugins/shell/jobs.ts) with the real bwrap: the max_jobs
 * cap, ended jobs freeing a place, a job that ignores SIGTERM, and stopAll. White-box on
 * purpose, through the table's own entry: shell.test.ts covers the same tools through the
 * daemon, where holding jobs at the cap would cost a daemon per case.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { JobTable } from "../../plugins/shell/jobs.ts";
import type { SandboxSettings } from "../../plugins/shell/sandbox.ts";

function table(workspace: string): JobTable {
  const settings: SandboxSettings = {
    mode: "bwrap",
    network: false,
    timeoutMs: 30_000,
    outputBytes: 64 * 1024,
    maxJobs: 2,
    workspace,
    searchPath: process.env.PATH ?? "/usr/bin:/bin",
  };
  return new JobTable(settings);
}

const bash = (command: string) => ({ argv: ["bash", "-c", command] });

describe("background jobs", () => {
  test("at most max_jobs run at once; an ended one frees its place; stopAll ends the rest", async () => {
    using dir = tempDir();
    const ws = join(dir.path, "workspace");
    mkdirSync(ws);
    const jobs = table(ws);
    const ready = async (name: string) => {
      while (!(await Bun.file(join(ws, name)).exists())) await Bun.sleep(10);
    };
    expect(jobs.start("one", bash("touch r1; sleep 30"))).toEqual({ id: "j1" });
    expect(jobs.start("two", bash("touch r2; sleep 30"))).toEqual({ id: "j2" });
    await ready("r1");
    await ready("r2");
    expect(jobs.start("three", bash("sleep 30"))).toEqual({
      refused:
        "shell_run: 2 background jobs are running, the most [tools.sandbox] max_jobs allows; end one with shell_kill or wait for one to finish",
    });
    expect(await jobs.kill("j2")).toMatch(/^j2 stopped \(SIGTERM\) after \d+ ms$/);
    expect(jobs.start("three", bash("touch r3; sleep 30"))).toEqual({ id: "j3" });
    await ready("r3");
    const started = Date.now();
    await jobs.stopAll();
    expect(Date.now() - started).toBeLessThan(1500);
    expect(jobs.runningCount).toBe(0);
    expect(jobs.list()).toMatch(
      /^j1\tstopped \(SIGTERM\)\t[\d.]+ s\tone\nj2\tstopped \(SIGTERM\)\t[\d.]+ s\ttwo\nj3\tstopped/m,
    );
  });

  test("a job that ignores SIGTERM is killed after the grace", async () => {
    using dir = tempDir();
    const ws = join(dir.path, "workspace");
    mkdirSync(ws);
    const jobs = table(ws);
    const j = jobs.start("stubborn", bash("trap '' TERM; echo trapped; touch ready; sleep 30 & wait"));
    if (!("id" in j)) throw new Error(j.refused);
    const ready = join(ws, "ready");
    while (!(await Bun.file(ready).exists())) await Bun.sleep(10);
    const started = Date.now();
    const said = await jobs.kill(j.id);
    const took = Date.now() - started;
    expect(said).toMatch(/^j1 stopped \(SIGKILL\) after \d+ ms$|^j1 stopped \(exit 137\) after \d+ ms$/);
    expect(took).toBeGreaterThanOrEqual(1900);
    expect(took).toBeLessThan(5000);
    expect(jobs.show("j1", 4096)).toContain("trapped");
    expect(jobs.show("j9", 4096)).toBeNull();
  });
});
