/**
 * Video through Debian's ffmpeg: ffprobe says how long it is and whether it has audio, frames are
 * taken at evenly spaced times (a bounded count, JPEG, fitted to 1024 px) to become tool images,
 * and the audio track is written as 16 kHz WAV for the transcript path (speech.ts).
 */
import { readFileSync } from "node:fs";
import * as v from "valibot";
import { MediaError } from "./media-error.ts";
import type { Scratch } from "./media-files.ts";
import { type RunOptions, runProgram } from "./programs.ts";

const Probe = v.object({
  format: v.optional(v.object({ duration: v.optional(v.string()) })),
  streams: v.optional(v.array(v.object({ codec_type: v.optional(v.string()), duration: v.optional(v.string()) }))),
});

export interface VideoProbe {
  seconds: number;
  video: boolean;
  audio: boolean;
}

export async function probe(file: string, what: string, opts: RunOptions): Promise<VideoProbe> {
  const r = await runProgram(
    "ffprobe",
    ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", file],
    opts,
  ).catch((err: Error) => {
    throw new MediaError(`${what} is not a video or audio file ffmpeg reads: ${err.message}`);
  });
  const parsed = v.safeParse(Probe, JSON.parse(r.stdout || "{}"));
  if (!parsed.success) throw new MediaError(`${what}: ffprobe's answer could not be read`);
  const streams = parsed.output.streams ?? [];
  const seconds = Number(parsed.output.format?.duration ?? streams.find((s) => s.duration)?.duration ?? 0);
  return {
    seconds: Number.isFinite(seconds) ? seconds : 0,
    video: streams.some((s) => s.codec_type === "video"),
    audio: streams.some((s) => s.codec_type === "audio"),
  };
}

export interface Frame {
  at: number;
  jpeg: Uint8Array;
}

/** `count` frames at evenly spaced times (the middle of equal slices), fitted inside maxPx. */
export async function frames(
  file: string,
  p: VideoProbe,
  count: number,
  maxPx: number,
  scratch: Scratch,
  opts: RunOptions,
): Promise<Frame[]> {
  const out: Frame[] = [];
  const n = p.seconds > 0 ? count : 1;
  for (let i = 0; i < n; i++) {
    const at = p.seconds > 0 ? (p.seconds * (i + 0.5)) / n : 0;
    const path = scratch.path(`frame${i}.jpg`);
    await ffmpeg(
      [
        "-ss",
        at.toFixed(2),
        "-i",
        file,
        "-frames:v",
        "1",
        "-vf",
        `scale='min(${maxPx},iw)':'min(${maxPx},ih)':force_original_aspect_ratio=decrease`,
        "-q:v",
        "4",
        path,
      ],
      opts,
    );
    try {
      out.push({ at, jpeg: new Uint8Array(readFileSync(path)) });
    } catch {
      // A seek past the last decodable frame writes nothing; the frames before it stand.
    }
  }
  if (out.length === 0) throw new MediaError("ffmpeg could not take any frame from it");
  return out;
}

/** ffmpeg as every call here runs it: no stdin, errors only, output overwritten. */
function ffmpeg(args: string[], opts: RunOptions) {
  return runProgram("ffmpeg", ["-nostdin", "-loglevel", "error", "-y", ...args], opts);
}

/** The audio track (or the audio) as a 16 kHz mono WAV file in scratch, as pocketsphinx reads it. */
export async function audioTrack(file: string, scratch: Scratch, opts: RunOptions): Promise<string> {
  const wav = scratch.path("track.wav");
  await ffmpeg(["-i", file, "-vn", "-ar", "16000", "-ac", "1", "-c:a", "pcm_s16le", wav], opts);
  return wav;
}

/** A screenshot of the X display `display` (ffmpeg x11grab), as PNG. */
export async function screenPng(display: string, scratch: Scratch, opts: RunOptions): Promise<Uint8Array> {
  if (!display)
    throw new MediaError(
      'no X display is configured ([tools.media] display is empty, e.g. ":0" turns screenshots on); for a web page use browser_screenshot',
    );
  const path = scratch.path("screen.png");
  await ffmpeg(
    [
      "-f",
      "x11grab",
      "-i",
      display,
      "-frames:v",
      "1",
      // A 4K screen as PNG can pass the 5 MiB an image may have; 1920 wide is plenty to read.
      "-vf",
      "scale='min(1920,iw)':-2",
      "-f",
      "image2",
      "-c:v",
      "png",
      path,
    ],
    { ...opts, env: { DISPLAY: display } },
  ).catch((err: Error) => {
    throw new MediaError(
      `the X display ${display} could not be captured (${err.message}); is an X server running there? For a web page use browser_screenshot`,
    );
  });
  return new Uint8Array(readFileSync(path));
}
