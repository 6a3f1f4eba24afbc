/**
 * A daemon run in a terminal: the terminal's hang-up and Ctrl-C go to its whole process group.
 * The kernel reloads on SIGHUP and stops on SIGINT; its plugins run in sessions of their own, so
 * a hang-up does not kill them (and restart them as crashed) and Ctrl-C stops them in order.
 */
import { describe, expect, test } from "bun:test";
import { tempDir } from "../harness/binary.ts";
import { startDaemon, webUrlOf } from "../harness/daemon.ts";

describe("the terminal's signals", () => {
  test("a hang-up reloads the kernel and leaves the plugins up; Ctrl-C stops them in order", async () => {
    using dir = tempDir();
    await using d = await startDaemon(dir.path, { detached: true });
    const web = await webUrlOf(d);
    const group = -(d.proc.pid as number);

    process.kill(group, "SIGHUP");
    await d.waitFor('msg="configuration reloaded"');
    await Bun.sleep(300);
    expect(d.stderr()).not.toContain('msg="plugin exited"');
    expect((await fetch(`${web}/healthz`)).status).toBe(200);

    process.kill(group, "SIGINT");
    expect(await d.proc.exited).toBe(0);
    expect(d.stderr()).toContain(
      'msg="plugin exited" component=supervisor plugin=web code=0 signal=null intent=shutdown',
    );
  }, 30_000);
});
