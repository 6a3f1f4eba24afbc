/**
 * Audio bytes of any format (WAV, Ogg/Opus, MP3, M4A, FLAC, WebM, AMR) → mono float samples at
 * the rate an audio encoder wants. Plain PCM/float WAV is read in process (src/embed/wav.ts), so
 * it works without ffmpeg; everything else goes through ffmpeg (Debian package ffmpeg), fed on
 * stdin and read as f32le from stdout, with a time cap and a byte cap so a hostile file can
 * neither hang memory's queue nor flood it, and with PATH as its only environment (no secret
 * of the daemon reaches it). MP4/M4A keep their index at the end of the file, which a pipe
 * cannot seek to: those go through a private temporary file instead.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_ATTACHMENT_BYTES } from "../protocol/attachments.ts";
import { HomedError } from "../protocol/errors.ts";
import { isWav, type Pcm, readWav } from "./wav.ts";

/** Seconds of audio read from one clip at most: the windows embedded are spread over them. */
export const MAX_READ_SECONDS = 120;
/** How long ffmpeg may take to read one clip. */
export const FFMPEG_TIMEOUT_MS = 20_000;
/** Lines of ffmpeg's complaints kept for the error (bytes). */
const STDERR_KEEP = 2048;

/** Whether `b` is an ISO media file (MP4, M4A): "ftyp" at offset 4. */
const isMp4 = (b: Uint8Array) => b.length >= 12 && String.fromCharCode(...b.subarray(4, 8)) === "ftyp";

/**
 * Mono samples of `bytes`, at most MAX_READ_SECONDS of them: a WAV at its own rate (the caller
 * resamples only what it uses), anything else at `rate` (ffmpeg resamples).
 */
export async function decodePcm(bytes: Uint8Array, rate: number, timeoutMs = FFMPEG_TIMEOUT_MS): Promise<Pcm> {
  if (bytes.length === 0) throw new HomedError("invalid_params", "no audio: the file is empty");
  if (bytes.length > MAX_ATTACHMENT_BYTES)
    throw new HomedError("invalid_params", `audio over ${MAX_ATTACHMENT_BYTES} bytes is not read`);
  const wav = isWav(bytes) ? readWav(bytes, MAX_READ_SECONDS) : null;
  const pcm = wav ?? { rate, samples: await ffmpegDecode(bytes, rate, timeoutMs) };
  if (pcm.samples.length === 0) throw new HomedError("invalid_params", "no audio samples in it");
  return pcm;
}

/** ffmpeg's path, or an error that names the Debian package. */
export function ffmpegPath(): string {
  const path = Bun.which("ffmpeg", { PATH: process.env.PATH ?? "/usr/bin:/bin" });
  if (!path)
    throw new HomedError(
      "unavailable",
      "ffmpeg is not installed: apt install ffmpeg (audio other than plain WAV is read with it)",
    );
  return path;
}

async function ffmpegDecode(bytes: Uint8Array, rate: number, timeoutMs: number): Promise<Float32Array> {
  const ffmpeg = ffmpegPath();
  const cap = MAX_READ_SECONDS * rate * 4;
  const tmp = isMp4(bytes) ? mkdtempSync(join(tmpdir(), "homed-audio-")) : null;
  const input = tmp ? join(tmp, "clip.m4a") : "pipe:0";
  if (tmp) writeFileSync(input, bytes, { mode: 0o600 });
  const args = [
    ...(tmp ? ["-nostdin"] : []), // else stdin is the input
    ...["-hide_banner", "-loglevel", "error", "-i", input, "-vn", "-sn", "-dn", "-t", String(MAX_READ_SECONDS)],
    ...["-f", "f32le", "-ac", "1", "-ar", String(rate), "pipe:1"],
  ];
  const proc = Bun.spawn([ffmpeg, ...args], {
    stdin: tmp ? "ignore" : new Blob([bytes]),
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    cwd: tmp ?? tmpdir(),
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    proc.kill("SIGKILL");
  }, timeoutMs);
  try {
    const [out, err] = await Promise.all([readCapped(proc.stdout, cap, () => proc.kill("SIGKILL")), tail(proc.stderr)]);
    await proc.exited;
    if (timedOut)
      throw new HomedError("invalid_params", `ffmpeg took longer than ${timeoutMs} ms to read it and was stopped`);
    // Over the cap (only if -t failed to stop it): keep what was read, the first MAX_READ_SECONDS.
    if (proc.exitCode !== 0 && !out.capped) {
      const last = err.trim().split("\n").filter(Boolean).slice(-2).join(" / ").slice(0, 300);
      throw new HomedError("invalid_params", `ffmpeg cannot read it as audio: ${last || `exit ${proc.exitCode}`}`);
    }
    const whole = out.bytes.length - (out.bytes.length % 4);
    return new Float32Array(out.bytes.buffer, out.bytes.byteOffset, whole / 4);
  } finally {
    clearTimeout(timer);
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }
}

/** At most `cap` bytes of a stream; past that `stop` is called and the rest is dropped. */
async function readCapped(
  stream: ReadableStream<Uint8Array>,
  cap: number,
  stop: () => void,
): Promise<{ bytes: Uint8Array; capped: boolean }> {
  const chunks: Uint8Array[] = [];
  let n = 0;
  let capped = false;
  for await (const chunk of stream) {
    if (capped) continue;
    const take = Math.min(chunk.length, cap - n);
    chunks.push(chunk.subarray(0, take));
    n += take;
    if (n >= cap) {
      capped = true;
      stop();
    }
  }
  const bytes = new Uint8Array(n);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return { bytes, capped };
}

/** The last STDERR_KEEP bytes of a stream, as text. */
async function tail(stream: ReadableStream<Uint8Array>): Promise<string> {
  let kept = new Uint8Array(0);
  for await (const chunk of stream) {
    const next = new Uint8Array(Math.min(STDERR_KEEP, kept.length + chunk.length));
    const joined = new Uint8Array(kept.length + chunk.length);
    joined.set(kept);
    joined.set(chunk, kept.length);
    next.set(joined.subarray(joined.length - next.length));
    kept = next;
  }
  return new TextDecoder().decode(kept);
}
