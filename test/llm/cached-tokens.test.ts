/**
 * Cached input tokens, as the provider reports them (OpenAI's `prompt_tokens_details.cached_tokens`,
 * Anthropic's `cache_read_input_tokens`), reach the person with the token counts: `homed chat`'s
 * line after the reply, the conversation's totals, the web API's transcript and conversation list,
 * `homed status`.
 */
import { describe, expect, test } from "bun:test";
import { HOMED, run, tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { webUrlOf } from "../harness/daemon.ts";
import { transcriptAt } from "../harness/transcript.ts";

describe("cached input tokens", () => {
  for (const kind of ["openai", "anthropic"] as const) {
    test(`${kind}: the cached part of the prompt is shown with the counts, per turn and per conversation`, async () => {
      using dir = tempDir();
      await using rig = await startAgentRig(dir.path, { plugin: false, kind });
      rig.llm.script([{ text: "first", usage: { input: 1200, output: 40, cached: 0 } }]);
      const first = await rig.chat("hello", { conv: "c" });
      expect(first.stderr).toContain("[done; 1200 in / 40 out tokens;");
      rig.llm.script([{ text: "second", usage: { input: 1300, output: 20, cached: 1024 } }]);
      const second = await rig.chat("again", { conv: "c" });
      expect(second.stderr).toContain(
        "[done; 1300 in (1024 cached) / 20 out tokens; conversation: 2 turns, 2500 in (1024 cached) / 60 out]",
      );

      const url = await webUrlOf(rig.daemon);
      const replies = (await transcriptAt(url, "c")).filter((i) => i.type === "done");
      const cached = replies.map((i) => (i.event.result as { usage: { cachedInputTokens?: number } }).usage);
      expect(cached.map((u) => u.cachedInputTokens)).toEqual([0, 1024]);
      const list = (await (await fetch(`${url}api/conversations`)).json()) as {
        id: string;
        cachedInputTokens: number;
      }[];
      expect(list.find((c) => c.id === "c")?.cachedInputTokens).toBe(1024);

      // An OpenAI client of /v1 reads it where OpenAI puts it.
      rig.llm.script([{ text: "third", usage: { input: 900, output: 10, cached: 512 } }]);
      const v1 = await fetch(`${url}v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "homed", messages: [{ role: "user", content: "hi" }] }),
      });
      const body = (await v1.json()) as { usage: { prompt_tokens: number; prompt_tokens_details?: unknown } };
      expect(body.usage).toMatchObject({ prompt_tokens: 900, prompt_tokens_details: { cached_tokens: 512 } });

      // `homed status`: every turn's tokens in this data dir, with the part the cache served.
      const st = await run([HOMED, "status", "-data", dir.path]);
      expect(st.stdout).toContain("  tokens   3400 in (1536 cached, 45 %) / 70 out over 3 turns");
    }, 60_000);
  }
});
