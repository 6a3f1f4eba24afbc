/**
 * channel.qq.added_ms: the median latency the QQ channel adds to a turn over the control socket
 * (same daemon, same scripted model): a private message from the owner through the fake OneBot
 * implementation (test/harness/fake-onebot.ts) over forward WebSocket until send_private_msg
 * arrives, minus a chat.send on the control socket. channel.qq.turns_s: turns per second with
 * eight private peers asking at once (eight conversations), message in to reply out.
 */
import { BenchDaemon } from "./bench-daemon.ts";
import { startFakeModel } from "./fake-model.ts";
import { median, report } from "./report.ts";
import { FakeOneBot } from "../test/harness/fake-onebot.ts";

const OWNER = 20002;
const SAMPLES = 30;
const PEERS = 8;
const TURNS_PER_PEER = 6;

export async function benchChannelQq(): Promise<void> {
  const model = startFakeModel();
  const fake = new FakeOneBot({ accessToken: "bench-token-qq" }).start();
  const owners = [OWNER, ...Array.from({ length: PEERS }, (_, i) => 21000 + i)];
  const daemon = await BenchDaemon.start({
    model,
    web: false,
    config: `[channels.qq]\nenabled = true\nmode = "ws"\nurl = "${fake.wsUrl}"\naccess_token = "bench-token-qq"\nowners = [${owners.join(", ")}]\nreconnect_ms = 100\n`,
  });
  try {
    await daemon.waitFor(/msg="qq connected"/, 30_000);
    const client = await daemon.connect();
    /** One QQ round trip: the message in, the reply out (model time subtracted). */
    const qqTurn = async (user: number, text: string): Promise<number> => {
      const before = fake.sends().length;
      const t0 = performance.now();
      const sent = fake.waitForCall(
        (c) => c.action === "send_private_msg" && c.params.user_id === user && fake.sends().indexOf(c) >= before,
        60_000,
      );
      await fake.privateMessage(user, [FakeOneBot.text(text)]);
      await sent;
      return performance.now() - t0;
    };
    const ctl: number[] = [];
    const qq: number[] = [];
    for (let i = 0; i < SAMPLES + 3; i++) {
      model.take();
      let t0 = performance.now();
      await client.peer.request("chat.send", { conv: "bench-ctl", text: `turn ${i}: what should I plant?` });
      const c = performance.now() - t0 - model.spent();
      model.take();
      t0 = performance.now();
      const q = (await qqTurn(OWNER, `turn ${i}: what should I plant?`)) - model.spent();
      if (i >= 3) {
        ctl.push(c);
        qq.push(q);
      }
    }
    report("channel.qq.added_ms", Math.max(0, median(qq) - median(ctl)), "ms", 2);

    const t0 = performance.now();
    await Promise.all(
      owners.slice(1).map(async (user) => {
        for (let i = 0; i < TURNS_PER_PEER; i++) await qqTurn(user, `question ${i}`);
      }),
    );
    report("channel.qq.turns_s", (PEERS * TURNS_PER_PEER) / ((performance.now() - t0) / 1000), "turns/s");
  } finally {
    await daemon.stop();
    fake.stop();
    model.stop();
  }
}

if (import.meta.main) await benchChannelQq();
