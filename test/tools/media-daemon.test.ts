/**
 * The media plugin in dist/homed, as a user runs it: the tools are listed with their risk classes
 * before the lazy plugin starts (and by `homed tools list` without a daemon); a scripted model
 * reads a PDF in DATA/workspace and has text spoken through a fake speech API whose key the
 * kernel takes from DATA/secrets.json (the media plugin gets it; an external plugin reading the
 * same section does not); media_screenshot (`secret`) is not run when the person says no.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOMED, run, tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { makePdf, makeVideo } from "../harness/media-fixtures.ts";
import { installBunPlugin } from "../harness/plugins.ts";
import { poll } from "../harness/poll.ts";

const KEY = "sk-speech-daemon-0123456789";
const RISKS = [
  ["media_ocr", "read"],
  ["media_pdf_page", "read"],
  ["media_read_doc", "read"],
  ["media_say", "write"],
  ["media_screenshot", "secret"],
  ["media_transcribe", "read"],
  ["media_video_frames", "read"],
];

type Message = { role: string; content: string };

describe("media plugin in the daemon", () => {
  test("a PDF read and a sentence spoken through the configured API with the key from secrets.json", async () => {
    using dir = tempDir();
    const speech: { auth: string | null; input: unknown }[] = [];
    using api = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(req) {
        speech.push({
          auth: req.headers.get("authorization"),
          input: ((await req.json()) as { input: unknown }).input,
        });
        return new Response(new Uint8Array([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 0]));
      },
    });
    writeFileSync(
      join(dir.path, "config.toml"),
      `[tools.media]\nspeech_url = "http://127.0.0.1:${api.port}/v1"\nspeech_key_secret = "speech"\n\n[approval]\nallow = ["media_read_doc", "media_say"]\n\n# The owner's own minutes: what media_read_doc returns carries no untrusted mark.\n[trust]\ntools = ["media_read_doc"]\n`,
    );
    writeFileSync(join(dir.path, "secrets.json"), JSON.stringify({ values: { speech: KEY } }), { mode: 0o600 });
    mkdirSync(join(dir.path, "workspace"));
    writeFileSync(
      join(dir.path, "workspace/minutes.pdf"),
      makePdf([["Minutes of the garden club"], ["Next meeting: May 4"]]),
    );
    const peeked = join(dir.path, "peek.json");
    installBunPlugin(dir.path, "peek", "config-peek.ts", {}, ["tools", peeked]);
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const before = await rig.status();
    expect((before.plugins as { name: string; state: string }[]).find((p) => p.name === "media")?.state).toBe("idle");
    expect(before.tools.filter((t) => t.name.startsWith("media_")).map((t) => [t.name, t.risk])).toEqual(RISKS);

    rig.llm.script([
      {
        toolCalls: [
          { name: "media_read_doc", arguments: { path: "minutes.pdf", first_page: 2 }, id: "c1" },
          { name: "media_say", arguments: { text: "Next meeting May 4", path: "minutes.mp3" }, id: "c2" },
        ],
      },
      { text: "done" },
    ]);
    const r = await rig.chat("read the minutes and say the date");
    expect(r.exitCode).toBe(0);
    expect(r.stderr).not.toContain("? allow");
    const sent = (rig.llm.requests[1]!.body as { messages: Message[] }).messages.filter((m) => m.role === "tool");
    expect(sent[0]!.content).toContain("minutes.pdf (PDF, 2 pages; pages 2-2)");
    expect(sent[0]!.content).toContain("Next meeting: May 4");
    expect(sent[1]!.content).toStartWith("Wrote minutes.mp3 (MP3, 10 bytes) with tts-1 (alloy)");
    expect(existsSync(join(dir.path, "workspace/minutes.mp3"))).toBe(true);
    expect(speech).toEqual([{ auth: `Bearer ${KEY}`, input: "Next meeting May 4" }]);
    expect(rig.daemon.stderr()).not.toContain(KEY);
    const other = await poll(
      async () => (existsSync(peeked) ? readFileSync(peeked, "utf8") : ""),
      (t) => t !== "",
      { what: "the external plugin's view of [tools]" },
    );
    expect(JSON.parse(other).media).toMatchObject({ speech_key_secret: "speech" });
    expect(other).not.toContain(KEY);
  }, 60_000);

  test("a PDF page and video frames reach the model as images over the shm transport", async () => {
    using dir = tempDir();
    writeFileSync(join(dir.path, "config.toml"), `[approval]\nallow = ["media_*"]\n`);
    mkdirSync(join(dir.path, "workspace"));
    writeFileSync(join(dir.path, "workspace/chart.pdf"), makePdf([["Cover"], ["Figure 2: rainfall by month"]]));
    await makeVideo(join(dir.path, "workspace/clip.mp4"), 2);
    await using rig = await startAgentRig(dir.path, { plugin: false });
    rig.llm.script([
      {
        toolCalls: [
          { name: "media_pdf_page", arguments: { path: "chart.pdf", page: 2, size: 500 }, id: "p1" },
          { name: "media_video_frames", arguments: { path: "clip.mp4", count: 2, transcribe: false }, id: "v1" },
        ],
      },
      { text: "seen" },
    ]);
    const r = await rig.chat("look at the chart and the clip");
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain("← media_pdf_page [ok] Page 2 of 2 of chart.pdf as a PNG");
    expect(r.stderr).toContain("[+1 image, shown in the web UI]");
    expect(r.stderr).toContain("[+2 images, shown in the web UI]");
    const messages = (rig.llm.requests[1]!.body as { messages: { role: string; content: unknown }[] }).messages;
    const urls = messages
      .filter((m) => m.role === "user" && Array.isArray(m.content))
      .flatMap((m) => m.content as { image_url?: { url: string } }[])
      .map((c) => c.image_url?.url.slice(0, 22))
      .filter(Boolean);
    expect(urls).toEqual(["data:image/png;base64,", "data:image/jpeg;base64", "data:image/jpeg;base64"]);
  }, 60_000);

  test("media_screenshot is secret: a person's no means it does not run", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    rig.llm.script([{ toolCalls: [{ name: "media_screenshot", arguments: {} }] }]);
    const r = await rig.chat("take a screenshot", { stdin: "n\n" });
    expect(r.stderr).toContain("? allow media_screenshot");
    expect(r.stderr).toContain("denied: the user declined media_screenshot");
    expect(r.stderr).not.toContain("X display");
    // Not even started: the lazy plugin never got the call.
    const st = await rig.status();
    expect((st.plugins as { name: string; state: string }[]).find((p) => p.name === "media")?.state).toBe("idle");
  }, 60_000);

  test("homed tools list names the media tools and their risks without a daemon", async () => {
    const list = JSON.parse((await run([HOMED, "tools", "list", "-json"])).stdout) as {
      name: string;
      plugin: string;
      risk: string;
    }[];
    expect(list.filter((t) => t.plugin === "media").map((t) => [t.name, t.risk])).toEqual(RISKS);
  });
});
