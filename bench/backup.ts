/**
 * Backups while the daemon works (issue 45), through the real commands:
 *   backup.mb          its size (the database compacted by the snapshot, the blocks, the rest)
 *   backup.mb_s        `homed backup` of a data folder of 100,000 events and 10 MiB of blocks,
 *                      spawn to exit (the snapshot, the copies, the check), taken while 20
 *                      conversations run turns back to back over the control socket
 *   restore.mb_s       `homed restore` of that backup into an empty folder (it checks first)
 *   backup.lost_turns  turns whose chat.send had answered before the backup started, missing from
 *                      the restored folder (read through a daemon started on it): must be 0
 *   backup.turns_during turns the 20 conversations finished while the backup ran (the daemon
 *                      kept answering)
 *   backup.recall_same 1 when memory.search answers a question with the same top 5 on the
 *                      restored folder as on the original
 * The history is imported with `homed import` (JSON lines); the blocks are written into
 * DATA/blocks as the daemon stores them (content-addressed), since no turn here makes pictures.
 */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BenchDaemon, HOMED } from "./bench-daemon.ts";
import { startFakeModel } from "./fake-model.ts";
import { report } from "./report.ts";
import { mulberry32 } from "../test/harness/prng.ts";

const EVENTS = 100_000;
const CONVERSATIONS = 1000;
const BLOCKS = 320;
const BLOCK_BYTES = 32 * 1024;
const STREAMS = 20;
const QUESTION = "What colour did I paint the garden shed?";
const FACT = "I painted the garden shed a deep teal last weekend.";

const WORDS = (
  "garden weather recipe bread oven flour train ticket museum painting guitar lesson chord river bridge camera " +
  "budget invoice meeting project deadline printer laptop battery coffee kettle bicycle mountain trail jacket " +
  "holiday flight hotel beach novel chapter library exam tomato basil compost fence ladder kitchen plumber " +
  "周末 天气 做饭 面包 火车 博物馆 吉他 预算 会议 项目 咖啡 自行车 爬山 酒店 小说 图书馆 考试 厨房"
).split(" ");

/** JSON lines `homed import` reads: EVENTS messages over CONVERSATIONS conversations, a day each. */
function history(): string {
  const rand = mulberry32(45);
  const pick = () => WORDS[Math.floor(rand() * WORDS.length)] as string;
  const lines: string[] = [];
  const per = EVENTS / CONVERSATIONS;
  for (let c = 0; c < CONVERSATIONS; c++) {
    const day = Date.UTC(2024, 0, 1) + c * 86_400_000;
    for (let m = 0; m < per; m++) {
      const text = c === 613 && m === 10 ? FACT : Array.from({ length: 6 + Math.floor(rand() * 20) }, pick).join(" ");
      lines.push(
        JSON.stringify({
          conv: `past-${c}`,
          role: m % 2 ? "assistant" : "user",
          text,
          time: new Date(day + m * 60_000).toISOString(),
        }),
      );
    }
  }
  return `${lines.join("\n")}\n`;
}

async function timed(cmd: string[]): Promise<{ seconds: number; out: string }> {
  const t0 = performance.now();
  const p = Bun.spawn(cmd, { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new Error(`${cmd.slice(0, 2).join(" ")} exited ${code}: ${err.slice(-500)}`);
  return { seconds: (performance.now() - t0) / 1000, out };
}

const top5 = async (d: BenchDaemon) =>
  ((await d.request("memory.search", { query: QUESTION, k: 5 })) as { hits: { text: string }[] }).hits.map(
    (h) => h.text,
  );

export async function benchBackup(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "homed-bench-backup-"));
  const model = startFakeModel({ reply: () => "ok, noted." });
  const data = join(root, "data");
  let daemon: BenchDaemon | null = null;
  let restoredDaemon: BenchDaemon | null = null;
  try {
    daemon = await BenchDaemon.start({ model, web: false, data });
    const file = join(root, "history.jsonl");
    writeFileSync(file, history());
    await timed([HOMED, "import", "-data", data, "-json", file]);
    const rand = mulberry32(450);
    for (let i = 0; i < BLOCKS; i++) {
      const bytes = new Uint8Array(BLOCK_BYTES).map(() => Math.floor(rand() * 256));
      const sha = createHash("sha256").update(bytes).digest("hex");
      mkdirSync(join(data, "blocks", sha.slice(0, 2)), { recursive: true });
      writeFileSync(join(data, "blocks", sha.slice(0, 2), sha), bytes);
    }
    const before = await top5(daemon);

    // Twenty conversations, each sending its next message as soon as the last was answered.
    const acked: { conv: string; text: string; at: number }[] = [];
    let streaming = true;
    const d = daemon;
    const streams = Array.from({ length: STREAMS }, async (_, s) => {
      const client = await d.connect();
      for (let n = 0; streaming; n++) {
        const text = `stream ${s} turn ${n}: a note about the ${WORDS[(s * 7 + n) % WORDS.length]}`;
        await client.peer.request("chat.send", { conv: `live-${s}`, text });
        acked.push({ conv: `live-${s}`, text, at: performance.now() });
      }
    });
    await Bun.sleep(3000);
    const started = performance.now();
    const dest = join(root, "backup");
    const b = await timed([HOMED, "backup", "-data", data, "-json", dest]);
    const done = performance.now();
    streaming = false;
    await Promise.all(streams);
    const summary = JSON.parse(b.out) as { bytes: number };
    report("backup.mb", summary.bytes / 1024 / 1024, "MiB");
    report("backup.mb_s", summary.bytes / 1024 / 1024 / b.seconds, "MiB/s");
    report("backup.turns_during", acked.filter((a) => a.at > started && a.at < done).length, "turns");

    const restored = join(root, "restored");
    const r = await timed([HOMED, "restore", "-data", restored, "-json", dest]);
    report("restore.mb_s", (JSON.parse(r.out) as { bytes: number }).bytes / 1024 / 1024 / r.seconds, "MiB/s");

    restoredDaemon = await BenchDaemon.start({ model, web: false, data: restored });
    const rd = restoredDaemon;
    const due = acked.filter((a) => a.at < started);
    let lost = 0;
    for (let s = 0; s < STREAMS; s++) {
      const transcript = JSON.stringify(await rd.request("conversations.messages", { conv: `live-${s}`, limit: 5000 }));
      lost += due.filter((a) => a.conv === `live-${s}` && !transcript.includes(a.text)).length;
    }
    report("backup.lost_turns", lost, "turns");
    const after = await top5(rd);
    if (!before.some((t) => t === FACT))
      throw new Error(`backup bench: the fact is not in the original's top 5: ${before.join(" | ")}`);
    report("backup.recall_same", JSON.stringify(after) === JSON.stringify(before) ? 1 : 0, "");
  } finally {
    await restoredDaemon?.stop();
    await daemon?.stop();
    model.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.main) await benchBackup();
