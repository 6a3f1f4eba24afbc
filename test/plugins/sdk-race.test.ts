/**
 * The plugin SDK seen from the kernel's side of its pipe: the test plays the kernel over the
 * plugin's stdin/stdout (stdio transport), so it can put frames in one chunk in an order the
 * real kernel may produce but rarely does.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { BUN } from "../harness/binary.ts";
import { FIXTURES } from "../harness/plugins.ts";
import { AgentMethod } from "../../src/protocol/agent.ts";
import { PluginMethod } from "../../src/protocol/plugin.ts";

interface Frame {
  id?: number | string;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

test("a stage call that arrives in the same chunk as the registration's reply reaches its handler", async () => {
  await using proc = Bun.spawn([BUN, join(FIXTURES, "stage-race.ts")], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? "/root",
      HOMED_PLUGIN_NAME: "race",
      HOMED_PLUGIN_TRANSPORT: "stdio",
    },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const send = (...frames: object[]) => {
    // One write, one chunk: every frame reaches the plugin's decoder together.
    proc.stdin.write(frames.map((f) => `${JSON.stringify({ jsonrpc: "2.0", ...f })}\n`).join(""));
    proc.stdin.flush();
  };
  const decoder = new TextDecoder();
  let buffered = "";
  let stageReply: Frame | null = null;
  for await (const chunk of proc.stdout) {
    buffered += decoder.decode(chunk, { stream: true });
    for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
      const frame = JSON.parse(buffered.slice(0, nl)) as Frame;
      buffered = buffered.slice(nl + 1);
      if (frame.method === PluginMethod.Hello) {
        send({
          id: frame.id,
          result: {
            kernelVersion: "test",
            dataDir: "/tmp",
            listen: "127.0.0.1:0",
            logLevel: "warn",
            inlineBulkLimit: 1 << 20,
          },
        });
      } else if (frame.method === AgentMethod.RegisterStages) {
        // The kernel registered handler 7 and a turn's on_input runs it at once.
        send(
          { id: frame.id, result: { ids: [7] } },
          {
            id: "k1",
            method: AgentMethod.RunStage,
            params: { stage: "on_input", handler: 7, payload: { text: "hi" } },
          },
        );
      } else if (frame.method === PluginMethod.Ready) {
        send({ id: frame.id, result: { ok: true } });
      } else if (frame.id === "k1") {
        stageReply = frame;
      }
    }
    if (stageReply) break;
  }
  expect(stageReply?.error).toBeUndefined();
  expect(stageReply?.result).toEqual({ text: "seen: hi" });
});
