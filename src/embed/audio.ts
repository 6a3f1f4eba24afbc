/**
 * Audio for a CLAP-style audio encoder: decoded to mono at the model's rate
 * (src/embed/audio-decode.ts), cut into windows of max_seconds, each given to the model either
 * as the waveform ([1, samples]) or as log-mel features ([1, 1, frames, n_mels],
 * src/embed/log-mel.ts). A clip shorter than a window is repeated to fill it, then padded with
 * silence (CLAP's "repeatpad"), so the model always sees the length it was trained on.
 */
import { decodePcm } from "./audio-decode.ts";
import { type MelSettings, frameCount, logMel, melFilterbank } from "./log-mel.ts";
import { resample } from "./wav.ts";

export interface AudioPreprocess extends MelSettings {
  max_seconds: number;
  form: "waveform" | "log-mel";
}

/** Windows embedded per clip at most; their vectors are averaged. */
export const MAX_WINDOWS = 3;

/**
 * The windows of `x`: one when it fits (repeat-padded); a longer clip gets up to MAX_WINDOWS
 * windows spread evenly from its start to its end, so the clip's vector (their average) speaks
 * for all of it, not only for its first seconds.
 */
export function windowsOf(x: Float32Array, size: number): Float32Array[] {
  if (x.length <= size) {
    const out = new Float32Array(size);
    const repeats = Math.floor(size / x.length);
    for (let r = 0; r < repeats; r++) out.set(x, r * x.length);
    return [out];
  }
  const count = Math.min(MAX_WINDOWS, Math.ceil(x.length / size));
  return Array.from({ length: count }, (_, i) => {
    const start = Math.round((i * (x.length - size)) / (count - 1));
    return x.slice(start, start + size);
  });
}

export interface AudioInput {
  data: Float32Array;
  dims: number[];
}

/** The model's input for one window. */
export function inputOf(window: Float32Array, p: AudioPreprocess, bank?: Float32Array[]): AudioInput {
  if (p.form === "waveform") return { data: window, dims: [1, window.length] };
  return { data: logMel(window, p, bank), dims: [1, 1, frameCount(window.length, p.hop), p.n_mels] };
}

/**
 * The model inputs of a clip: one per window (decode errors are invalid_params / unavailable).
 * A WAV at another rate is cut into windows first and only they are resampled.
 */
export async function audioInputs(bytes: Uint8Array, p: AudioPreprocess): Promise<AudioInput[]> {
  const pcm = await decodePcm(bytes, p.sample_rate);
  const size = Math.round(p.max_seconds * p.sample_rate);
  const bank = p.form === "log-mel" ? melFilterbank(p) : undefined;
  const out: AudioInput[] = [];
  for (const w of windowsOf(pcm.samples, Math.round(p.max_seconds * pcm.rate))) {
    // Features are computed on the daemon's event loop (~50 ms a 10 s window at CLAP's
    // defaults): give other work a turn between windows rather than block for a whole clip.
    if (out.length > 0) await new Promise((r) => setImmediate(r));
    const at = resample(w, pcm.rate, p.sample_rate);
    const window = at.length === size ? at : new Float32Array(size);
    if (window !== at) window.set(at.subarray(0, size));
    out.push(inputOf(window, p, bank));
  }
  return out;
}
