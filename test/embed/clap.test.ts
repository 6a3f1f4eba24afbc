/**
 * CLAP-style models through the real ONNX runtime (src/embed/onnx.ts embedAudio): the tiny pair
 * of test/harness/tiny-onnx.ts puts a low hum on the word "hello" and a whistle on "world", fed
 * the waveform or log-mel features; a clip longer than the window is heard over its whole length;
 * a model without an audio encoder refuses; a bad `audio` section in homed-model.json is a clear
 * error naming the file.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { TINY_AUDIO_RATE, sineWav, writeTinyClap, writeTinyModel } from "../harness/tiny-onnx.ts";
import { OnnxEmbedder, readModelManifest } from "../../src/embed/onnx.ts";
import { cosine, embedsAudio } from "../../src/embed/embedder.ts";
import { HomedError } from "../../src/protocol/errors.ts";

const WHISTLE = TINY_AUDIO_RATE / 6;

/** A 16-bit mono WAV of these samples at 16 kHz (two clips glued end to end). */
function glued(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length - 44);
  out.set(a);
  out.set(b.subarray(44), a.length);
  const dv = new DataView(out.buffer);
  dv.setUint32(4, out.length - 8, true);
  dv.setUint32(40, out.length - 44, true);
  return out;
}

describe("CLAP-style audio encoders", () => {
  for (const form of ["waveform", "log-mel"] as const) {
    test(`${form}: a hum lands on "hello", a whistle on "world"`, async () => {
      using dir = tempDir();
      writeTinyClap(dir.path, form);
      const e = await OnnxEmbedder.load(dir.path);
      expect(e.hasAudio).toBe(true);
      expect(embedsAudio(e)).toBe(true);
      const [hello, world] = (await e.embedTexts(["hello", "world"])) as [Float32Array, Float32Array];
      const [hum, whistle] = (await e.embedAudio([
        sineWav(100, 1, TINY_AUDIO_RATE),
        sineWav(WHISTLE, 1, TINY_AUDIO_RATE),
      ])) as [Float32Array, Float32Array];
      expect(hum).toHaveLength(4);
      expect(cosine(hum, hello)).toBeGreaterThan(cosine(hum, world) + 0.5);
      expect(cosine(whistle, world)).toBeGreaterThan(cosine(whistle, hello) + 0.5);
      if (form === "waveform") {
        // Loudness and roughness exactly: the whistle's ratio is 2·sin(π/6) = 1, so it *is* "world".
        expect(cosine(whistle, world)).toBeCloseTo(1, 3);
        expect(cosine(hum, hello)).toBeGreaterThan(0.99);
      }
    });
  }

  test("a clip longer than the window is heard over all of it: three windows, averaged", async () => {
    using dir = tempDir();
    writeTinyClap(dir.path); // 2 s windows
    const e = await OnnxEmbedder.load(dir.path);
    const [hello, world] = (await e.embedTexts(["hello", "world"])) as [Float32Array, Float32Array];
    // 4 s of hum then 4 s of whistle: windows at 0–2 s (hum), 3–5 s (half each), 6–8 s (whistle).
    const clip = glued(sineWav(100, 4, TINY_AUDIO_RATE), sineWav(WHISTLE, 4, TINY_AUDIO_RATE));
    const [v] = (await e.embedAudio([clip])) as [Float32Array];
    const [hum] = (await e.embedAudio([sineWav(100, 2, TINY_AUDIO_RATE)])) as [Float32Array];
    expect(cosine(v, world)).toBeGreaterThan(0.3); // not only its first seconds
    expect(cosine(v, hello)).toBeGreaterThan(0.3);
    expect(cosine(v, hum)).toBeLessThan(0.9);
  });

  test("a text-only model has no audio encoder and says so", async () => {
    using dir = tempDir();
    writeTinyModel(dir.path);
    const e = await OnnxEmbedder.load(dir.path);
    expect(e.hasAudio).toBe(false);
    expect(embedsAudio(e)).toBe(false);
    await expect(e.embedAudio([sineWav(100, 1)])).rejects.toThrow("tiny@1 has no audio encoder");
  });

  test("the audio section's defaults are CLAP HTSAT's; a bad one is a clear error naming the file", () => {
    using dir = tempDir();
    writeTinyModel(dir.path);
    const file = join(dir.path, "homed-model.json");
    const base = JSON.parse(readFileSync(file, "utf8"));
    const withAudio = (audio: unknown) => {
      writeFileSync(file, JSON.stringify({ ...base, audio }));
      return () => readModelManifest(dir.path);
    };
    expect(withAudio({ model: "a.onnx" })().audio).toEqual({
      model: "a.onnx",
      sample_rate: 48000,
      max_seconds: 10,
      form: "log-mel",
      input: "input_features",
      output: "audio_embeds",
      n_fft: 1024,
      hop: 480,
      n_mels: 64,
      f_min: 50,
      f_max: 14000,
    });
    expect(withAudio({ model: "a.onnx", form: "waveform" })().audio?.input).toBe("input_values");
    const bad: [unknown, RegExp][] = [
      [{ model: "a.onnx", n_fft: 1000 }, /n_fft must be a power of two/],
      [{ model: "a.onnx", sample_rate: 16000 }, /f_max at most half the sample_rate/],
      [{ model: "a.onnx", form: "mfcc" }, /audio\.form/],
      [{ sample_rate: 16000 }, /audio\.model/],
      [{ model: "a.onnx", max_seconds: 0 }, /audio\.max_seconds/],
    ];
    for (const [audio, why] of bad) {
      const read = withAudio(audio);
      expect(read).toThrow(HomedError);
      expect(read).toThrow(why);
      expect(read).toThrow(file);
    }
  });
});
