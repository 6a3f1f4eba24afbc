/**
 * [channels.qq] on a configuration reload (SIGHUP): turning the channel on starts the plugin
 * without restarting homed, a change of its settings restarts it with them, and turning it off
 * is named as needing a restart.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { FakeOneBot, startFakeOneBot } from "../harness/fake-onebot.ts";
import { poll } from "../harness/poll.ts";
import { waitConnected } from "../harness/qq-rig.ts";

const TOKEN = "qq-reload-token";

test("SIGHUP turns QQ on, applies new settings by restarting the plugin, and names turning it off", async () => {
  using dir = tempDir();
  using fake = await startFakeOneBot({ accessToken: TOKEN });
  await using rig = await startAgentRig(dir.path, { plugin: false });
  const qq = async () =>
    ((await rig.status()).plugins as { name: string; state: string; pid: number | null }[]).find(
      (p) => p.name === "qq",
    ) as { state: string; pid: number | null };
  expect((await qq()).state).toBe("disabled");

  const config = (extra: string) =>
    writeFileSync(
      join(dir.path, "config.toml"),
      `[channels.qq]\nenabled = true\nurl = "${fake.wsUrl}"\naccess_token = "${TOKEN}"\n${extra}`,
    );
  config("");
  rig.daemon.proc.kill("SIGHUP");
  await waitConnected(fake);
  const first = await poll(qq, (p) => p.state === "ready", { what: "qq ready" });

  // A keyword added: the plugin restarts with it.
  config('keywords = ["bot,"]\n');
  rig.daemon.proc.kill("SIGHUP");
  const second = await poll(qq, (p) => p.state === "ready" && p.pid !== first.pid, { what: "qq restarted" });
  expect(second.pid).not.toBe(first.pid);
  await waitConnected(fake);
  rig.llm.script([{ text: "heard the keyword" }]);
  await fake.groupMessage(30003, 40004, [FakeOneBot.text("bot, are you there?")]);
  await fake.waitForCall((c) => JSON.stringify(c.params).includes("heard the keyword"));

  // Turning it off waits for the next start (the plugin keeps running until then).
  writeFileSync(join(dir.path, "config.toml"), "[channels.qq]\nenabled = false\n");
  rig.daemon.proc.kill("SIGHUP");
  await rig.daemon.waitFor(/msg="configuration reloaded".*restart_needed=\S*channels.qq.enabled/);
}, 30_000);
