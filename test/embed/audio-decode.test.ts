/**
 * Audio bytes → mono samples at a model's rate (src/embed/audio-decode.ts, wav.ts): WAV read in
 * process (no ffmpeg needed: PATH is emptied for it), other formats through the real ffmpeg (Ogg
 * Opus, M4A through its temporary file), with a clear error when ffmpeg is missing, for bytes
 * that are not audio, and when ffmpeg runs past its time cap. Windows: a short clip is repeated,
 * a long one gives three windows spread from its start to its end.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { decodePcm, ffmpegPath } from "../../src/embed/audio-decode.ts";
import { windowsOf } from "../../src/embed/audio.ts";
import { readWav, resample } from "../../src/embed/wav.ts";
import { HomedError } from "../../src/protocol/errors.ts";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { sineWav } from "../harness/tiny-onnx.ts";
import { opusOf } from "../harness/block-vectors.ts";

const PATH = process.env.PATH;
afterEach(() => {
  process.env.PATH = PATH;
});

/** Mono samples of `bytes` at `rate` Hz, as the encoder's input is made (decode, then resample). */
async function decodeAudio(bytes: Uint8Array, rate: number, timeoutMs?: number): Promise<Float32Array> {
  const pcm = await decodePcm(bytes, rate, timeoutMs);
  return resample(pcm.samples, pcm.rate, rate);
}

/** An ordinary M4A (its index, moov, after the audio: written to a seekable file). */
async function m4aOf(wav: Uint8Array): Promise<Uint8Array> {
  using dir = tempDir();
  const file = join(dir.path, "a.m4a");
  const p = Bun.spawn(["ffmpeg", "-hide_banner", "-loglevel", "error", "-i", "pipe:0", "-c:a", "aac", file], {
    stdin: new Blob([wav]),
  });
  expect(await p.exited).toBe(0);
  return new Uint8Array(readFileSync(file));
}

/** Frequency of a mono signal by its rising zero crossings. */
function frequency(x: Float32Array, rate: number): number {
  let n = 0;
  for (let i = 1; i < x.length; i++) if ((x[i - 1] as number) < 0 && (x[i] as number) >= 0) n++;
  return (n * rate) / x.length;
}

/** A float32 or 24-bit WAV of `x` (mono), written here independently of the reader. */
function wavOf(x: Float32Array, rate: number, bits: 24 | 32): Uint8Array {
  const width = bits / 8;
  const out = Buffer.alloc(44 + x.length * width);
  out.write("RIFF", 0, "latin1");
  out.writeUInt32LE(36 + x.length * width, 4);
  out.write("WAVEfmt ", 8, "latin1");
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(bits === 32 ? 3 : 1, 20);
  out.writeUInt16LE(1, 22);
  out.writeUInt32LE(rate, 24);
  out.writeUInt32LE(rate * width, 28);
  out.writeUInt16LE(width, 32);
  out.writeUInt16LE(bits, 34);
  out.write("data", 36, "latin1");
  out.writeUInt32LE(x.length * width, 40);
  x.forEach((v, i) => {
    if (bits === 32) out.writeFloatLE(v, 44 + i * 4);
    else out.writeIntLE(Math.round(v * 8388607), 44 + i * 3, 3);
  });
  return new Uint8Array(out);
}

const expectError = async (p: Promise<unknown>, code: HomedError["code"], text: RegExp) => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HomedError);
  expect((err as HomedError).code).toBe(code);
  expect((err as HomedError).message).toMatch(text);
};

describe("audio decoding", () => {
  test("a stereo 16-bit WAV at 44.1 kHz is read in process and resampled to 16 kHz, without ffmpeg", async () => {
    process.env.PATH = "/nonexistent";
    expect(() => ffmpegPath()).toThrow("ffmpeg is not installed: apt install ffmpeg");
    const x = await decodeAudio(sineWav(440, 1.5, 44100, 2), 16000);
    expect(x.length).toBe(24000);
    for (let i = 100; i < x.length - 100; i += 97)
      expect(Math.abs((x[i] as number) - 0.5 * Math.sin((2 * Math.PI * 440 * i) / 16000))).toBeLessThan(0.01);
  });

  test("float and 24-bit WAVs read to the same samples; 8 kHz up to 16 kHz keeps the pitch", () => {
    const x = Float32Array.from({ length: 8000 }, (_, i) => 0.7 * Math.sin((2 * Math.PI * 300 * i) / 8000));
    const f = readWav(wavOf(x, 8000, 32), 10);
    const i24 = readWav(wavOf(x, 8000, 24), 10);
    expect(f?.rate).toBe(8000);
    // Both read at all (a format readWav does not take is null, and every() over nothing is true).
    expect([f?.samples.length, i24?.samples.length]).toEqual([8000, 8000]);
    expect(Array.from(f?.samples ?? []).every((v, i) => Math.abs(v - (x[i] as number)) < 1e-7)).toBe(true);
    expect(Array.from(i24?.samples ?? []).every((v, i) => Math.abs(v - (x[i] as number)) < 1e-6)).toBe(true);
    const up = resample(x, 8000, 16000);
    expect(up.length).toBe(16000);
    expect(frequency(up, 16000)).toBeCloseTo(300, -1);
    // at most the given seconds are read
    expect(readWav(wavOf(x, 8000, 32), 0.5)?.samples.length).toBe(4000);
  });

  test("resampling 48 → 16 kHz filters out what the new rate cannot hold (no aliasing)", () => {
    // 10 kHz is above 16 kHz's Nyquist: it must vanish, not fold back to 6 kHz.
    const x = Float32Array.from({ length: 48000 }, (_, i) => 0.5 * Math.sin((2 * Math.PI * 10000 * i) / 48000));
    const y = resample(x, 48000, 16000);
    const rms = Math.sqrt(y.subarray(200, -200).reduce((s, v) => s + v * v, 0) / (y.length - 400));
    expect(rms).toBeLessThan(0.01);
  });

  test("Ogg Opus and M4A go through ffmpeg at the asked rate", async () => {
    const wav = sineWav(1000, 3, 48000);
    const ogg = await opusOf(wav);
    const x = await decodeAudio(ogg, 16000);
    expect(Math.abs(x.length - 48000)).toBeLessThan(1000);
    expect(frequency(x.subarray(2000, -2000), 16000)).toBeCloseTo(1000, -1);
    // M4A keeps its index at the end: it cannot come through a pipe, a temporary file is used.
    const m4a = await m4aOf(sineWav(1000, 10, 48000));
    const y = await decodeAudio(m4a, 22050);
    expect(Math.abs(y.length - 220500)).toBeLessThan(3000);
    expect(frequency(y.subarray(4000, -4000), 22050)).toBeCloseTo(1000, -1);
  });

  test("ffmpeg missing, bytes that are not audio, a time cap: clear errors", async () => {
    const ogg = await opusOf(sineWav(500, 2));
    await expectError(decodeAudio(ogg, 16000, 1), "invalid_params", /ffmpeg took longer than 1 ms/);
    await expectError(
      decodeAudio(new TextEncoder().encode("no sound here at all"), 16000),
      "invalid_params",
      /ffmpeg cannot read it as audio/,
    );
    await expectError(decodeAudio(new Uint8Array(0), 16000), "invalid_params", /the file is empty/);
    await expectError(decodeAudio(sineWav(500, 0), 16000), "invalid_params", /no audio samples in it/);
    const broken = sineWav(500, 1).slice(0, 30); // the header stops inside fmt
    await expectError(decodeAudio(broken, 16000), "invalid_params", /not a WAV file this reads: short fmt chunk/);
    process.env.PATH = "/nonexistent";
    await expectError(decodeAudio(ogg, 16000), "unavailable", /ffmpeg is not installed: apt install ffmpeg/);
  });

  test("ffmpeg gets PATH as its only environment: no secret of the daemon reaches it", async () => {
    using dir = tempDir();
    const seen = join(dir.path, "env.txt");
    // A stand-in ffmpeg that writes down its environment (sh adds PWD, SHLVL and _ itself).
    writeFileSync(join(dir.path, "ffmpeg"), `#!/bin/sh\n/usr/bin/env > ${seen}\nexit 1\n`, { mode: 0o755 });
    process.env.PATH = `${dir.path}:/usr/bin:/bin`;
    process.env.HOMED_TEST_SECRET = "sk-do-not-leak";
    try {
      await expectError(decodeAudio(new TextEncoder().encode("OggS..."), 16000), "invalid_params", /exit 1/);
    } finally {
      delete process.env.HOMED_TEST_SECRET;
    }
    const names = readFileSync(seen, "utf8")
      .trim()
      .split("\n")
      .map((l) => l.split("=")[0])
      .filter((n) => !["PWD", "SHLVL", "_"].includes(n as string));
    expect(names).toEqual(["PATH"]);
  });

  test("a short clip is repeated to fill its window; a long one gives three windows, first to last", () => {
    const short = Float32Array.from({ length: 3 }, (_, i) => i + 1);
    expect(Array.from(windowsOf(short, 8)[0] ?? [])).toEqual([1, 2, 3, 1, 2, 3, 0, 0]);
    const long = Float32Array.from({ length: 100 }, (_, i) => i);
    const w = windowsOf(long, 10);
    expect(w.map((x) => [x[0], x[9]])).toEqual([
      [0, 9],
      [45, 54],
      [90, 99],
    ]);
    expect(windowsOf(long.subarray(0, 15), 10).map((x) => x[0])).toEqual([0, 5]);
  });
});
