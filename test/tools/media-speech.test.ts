/**
 * Voice through the compiled media plugin. Offline: media_say writes a WAV with espeak-ng and
 * media_transcribe gets words back from it with pocketsphinx (a round trip). With speech_url: a
 * local Bun.serve plays an OpenAI-compatible speech API and checks what it is sent — the JSON of
 * /audio/speech, the multipart form of /audio/transcriptions (the file's bytes and name, the
 * model), the bearer key — and an API error comes back as a sentence.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { espeakWav } from "../harness/media-fixtures.ts";
import { startMediaPlugin } from "../harness/media-rig.ts";

let dir: ReturnType<typeof tempDir>;
let ws: string;

beforeAll(() => {
  dir = tempDir("homed-media-speech-");
  ws = join(dir.path, "workspace");
  mkdirSync(ws);
});
afterAll(() => dir[Symbol.dispose]());

describe("speech offline", () => {
  test("media_say then media_transcribe: espeak-ng's words come back through pocketsphinx", async () => {
    await using rig = await startMediaPlugin(dir.path);
    const said = await rig.tool("media_say", {
      text: "one two three four five",
      voice: "en-us+klatt",
      path: "voice/count.wav",
    });
    expect(said).toMatchObject({ isError: false });
    expect(said.content).toMatch(
      /^Wrote voice\/count\.wav \(WAV, \d+ bytes\) with espeak-ng \(en-us\+klatt, offline\)\.$/,
    );
    const wav = readFileSync(join(ws, "voice/count.wav"));
    expect(wav.subarray(0, 4).toString()).toBe("RIFF");
    expect(wav.subarray(8, 12).toString()).toBe("WAVE");

    const again = await rig.tool("media_say", { text: "x", path: "voice/count.wav" });
    expect(again.content).toBe("media_say: voice/count.wav already exists; give another path or overwrite: true");

    const heard = await rig.tool("media_transcribe", { path: "voice/count.wav" });
    expect(heard.isError).toBe(false);
    expect(heard.content).toStartWith("Transcript of voice/count.wav (pocketsphinx (offline, English only)):");
    const words = heard.content.split(":\n\n")[1]!.split(/\s+/);
    const hits = ["one", "two", "three", "four", "five"].filter((w) => words.includes(w));
    expect(hits.length).toBeGreaterThanOrEqual(3);
  }, 60_000);
});

describe("speech through an OpenAI-compatible API", () => {
  test("/audio/speech gets the JSON and the key; /audio/transcriptions gets a multipart form with the file", async () => {
    const seen: { path: string; auth: string | null; json?: unknown; form?: Record<string, unknown> }[] = [];
    const audio = new Uint8Array([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 0, 1, 2, 3]);
    using api = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(req) {
        const path = new URL(req.url).pathname;
        const auth = req.headers.get("authorization");
        if (path === "/v1/audio/speech") {
          seen.push({ path, auth, json: await req.json() });
          return new Response(audio, { headers: { "Content-Type": "audio/mpeg" } });
        }
        if (path === "/v1/audio/transcriptions") {
          expect(req.headers.get("content-type")).toStartWith("multipart/form-data; boundary=");
          const form = await req.formData();
          const file = form.get("file") as File;
          seen.push({
            path,
            auth,
            form: {
              model: form.get("model"),
              name: file.name,
              bytes: new Uint8Array(await file.arrayBuffer()),
            },
          });
          return Response.json({ text: " the fake API heard this " });
        }
        return new Response("no such route", { status: 404 });
      },
    });
    await using rig = await startMediaPlugin(dir.path, {
      speech_url: `http://127.0.0.1:${api.port}/v1/`,
      speech_key: "sk-test-123",
      stt_model: "whisper-large",
    });
    const said = await rig.tool("media_say", { text: "Good morning", path: "api/hello.mp3" });
    expect(said.content).toBe(
      `Wrote api/hello.mp3 (MP3, ${audio.length} bytes) with tts-1 (alloy) at http://127.0.0.1:${api.port}/v1/.`,
    );
    expect(new Uint8Array(readFileSync(join(ws, "api/hello.mp3")))).toEqual(audio);
    expect(seen[0]).toEqual({
      path: "/v1/audio/speech",
      auth: "Bearer sk-test-123",
      json: { model: "tts-1", voice: "alloy", input: "Good morning", response_format: "mp3" },
    });

    await espeakWav("anything", join(ws, "clip.wav"));
    const bytes = new Uint8Array(readFileSync(join(ws, "clip.wav")));
    const heard = await rig.tool("media_transcribe", { path: "clip.wav" });
    expect(heard.content).toBe(
      `Transcript of clip.wav (whisper-large at http://127.0.0.1:${api.port}/v1/):\n\nthe fake API heard this`,
    );
    expect(seen[1]).toEqual({
      path: "/v1/audio/transcriptions",
      auth: "Bearer sk-test-123",
      form: { model: "whisper-large", name: "clip.wav", bytes },
    });
  });

  test("an API error and an unreachable API are sentences; no file is left behind", async () => {
    using api = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () => Response.json({ error: { message: "quota exceeded" } }, { status: 429 }),
    });
    await using rig = await startMediaPlugin(dir.path, { speech_url: `http://127.0.0.1:${api.port}/v1` });
    const said = await rig.tool("media_say", { text: "hi", path: "fail.mp3" });
    expect(said).toMatchObject({
      isError: true,
      content: 'media_say: the speech API\'s /audio/speech answered HTTP 429: {"error":{"message":"quota exceeded"}}',
    });
    expect(existsSync(join(ws, "fail.mp3"))).toBe(false);
    writeFileSync(join(ws, "x.wav"), readFileSync(join(ws, "clip.wav")));
    const heard = await rig.tool("media_transcribe", { path: "x.wav" });
    expect(heard.content).toStartWith("media_transcribe: the speech API's /audio/transcriptions answered HTTP 429");

    await using gone = await startMediaPlugin(dir.path, { speech_url: "http://127.0.0.1:9/v1" });
    const unreachable = await gone.tool("media_say", { text: "hi" });
    expect(unreachable.content).toStartWith("media_say: the speech API at http://127.0.0.1:9/v1 cannot be reached:");
  });
});
