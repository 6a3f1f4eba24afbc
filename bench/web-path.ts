/**
 * The web UI's path for a streamed reply.
 *
 * `web.pipe_msgs_per_delta`: JSON-RPC frames the kernel writes to the web plugin per streamed
 * delta of a web turn followed by one page (POST /api/chat, SSE back), through the compiled
 * daemon and a scripted model that streams its reply in many pieces. Two turns, of 20 and of
 * 220 pieces: the difference in frames over the difference in deltas, so the turn's fixed
 * frames (the send, the watch, the end) cancel out.
 */
import { startAgentRig } from "../test/harness/agent-daemon.ts";
import { tempDir } from "../test/harness/binary.ts";
import { webUrlOf } from "../test/harness/daemon.ts";
import { report } from "./report.ts";

interface PluginFrames {
  name: string;
  frames?: { in: number; out: number };
}

/** A web turn as the page runs it; resolves with the number of text deltas the page was sent. */
async function pageTurn(url: string, conv: string, text: string): Promise<number> {
  const res = await fetch(`${url}api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-homed": "1" },
    body: JSON.stringify({ conv, text }),
  });
  const body = await res.text();
  return body.split("\n").filter((l) => l.startsWith("data:") && l.includes('"type":"text-delta"')).length;
}

export async function benchWebPath(): Promise<void> {
  using dir = tempDir("homed-bench-web-");
  await using rig = await startAgentRig(dir.path, { plugin: false });
  const url = await webUrlOf(rig.daemon);
  const framesToWeb = async () =>
    ((await rig.status()).plugins as PluginFrames[]).find((p) => p.name === "web")?.frames?.out ?? 0;
  const turn = async (chunks: number, conv: string) => {
    rig.llm.script([{ text: "word ".repeat(chunks * 4), chunks }]);
    const before = await framesToWeb();
    const deltas = await pageTurn(url, conv, "write a long answer");
    return { deltas, frames: (await framesToWeb()) - before };
  };
  await turn(5, "warm");
  const small = await turn(20, "small");
  const large = await turn(220, "large");
  const perDelta = (large.frames - small.frames) / (large.deltas - small.deltas);
  report("web.pipe_msgs_per_delta", perDelta, "msgs", 2);
  console.error(
    `web path: ${small.deltas} deltas → ${small.frames} frames, ${large.deltas} deltas → ${large.frames} frames to the web plugin`,
  );
}

if (import.meta.main) await benchWebPath();
