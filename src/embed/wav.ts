/**
 * Plain WAV read in process, so an audio encoder takes WAV without ffmpeg: RIFF/WAVE with PCM
 * (8, 16, 24, 32-bit integers) or IEEE float (32, 64-bit) samples, plain or
 * WAVE_FORMAT_EXTENSIBLE; channels are averaged to mono. Other codecs inside a WAV (ADPCM, µ-law)
 * return null and go to ffmpeg. Plus the resampler that brings the samples to the model's rate.
 */
import { HomedError } from "../protocol/errors.ts";

export interface Pcm {
  rate: number;
  samples: Float32Array;
}

const tag = (b: Uint8Array, at: number) => String.fromCharCode(...b.subarray(at, at + 4));

/** Whether `bytes` start like a RIFF WAVE file. */
export const isWav = (b: Uint8Array) => b.length >= 12 && tag(b, 0) === "RIFF" && tag(b, 8) === "WAVE";

/**
 * Mono samples of a PCM or float WAV, at most `maxSeconds` of them; null when the WAV holds
 * another codec. A malformed file is invalid_params.
 */
export function readWav(bytes: Uint8Array, maxSeconds: number): Pcm | null {
  const bad = (why: string) => new HomedError("invalid_params", `not a WAV file this reads: ${why}`);
  if (!isWav(bytes)) throw bad("no RIFF/WAVE header");
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let fmt: { format: number; channels: number; rate: number; bits: number } | null = null;
  let at = 12;
  while (at + 8 <= bytes.length) {
    const id = tag(bytes, at);
    const size = dv.getUint32(at + 4, true);
    const body = at + 8;
    if (id === "fmt ") {
      if (size < 16 || body + 16 > bytes.length) throw bad("short fmt chunk");
      let format = dv.getUint16(body, true);
      // WAVE_FORMAT_EXTENSIBLE: the real format is the first two bytes of the sub-format GUID.
      if (format === 0xfffe && size >= 40 && body + 26 <= bytes.length) format = dv.getUint16(body + 24, true);
      fmt = {
        format,
        channels: dv.getUint16(body + 2, true),
        rate: dv.getUint32(body + 4, true),
        bits: dv.getUint16(body + 14, true),
      };
    } else if (id === "data") {
      if (!fmt) throw bad("data before fmt");
      // A streamed WAV may say 0 or 0xFFFFFFFF: the data is then the rest of the file.
      const end = size === 0 || body + size > bytes.length ? bytes.length : body + size;
      return samplesOf(dv, body, end, fmt, maxSeconds, bad);
    }
    at = body + size + (size & 1);
  }
  throw bad(fmt ? "no data chunk" : "no fmt chunk");
}

function samplesOf(
  dv: DataView,
  start: number,
  end: number,
  f: { format: number; channels: number; rate: number; bits: number },
  maxSeconds: number,
  bad: (why: string) => HomedError,
): Pcm | null {
  const pcm = f.format === 1 && [8, 16, 24, 32].includes(f.bits);
  const float = f.format === 3 && (f.bits === 32 || f.bits === 64);
  if (!pcm && !float) return null;
  if (f.channels < 1 || f.channels > 64) throw bad(`${f.channels} channels`);
  if (f.rate < 1000 || f.rate > 768_000) throw bad(`a sample rate of ${f.rate} Hz`);
  const width = f.bits / 8;
  const frame = width * f.channels;
  const frames = Math.min(Math.floor((end - start) / frame), Math.ceil(maxSeconds * f.rate));
  const read = (o: number): number => {
    if (float) return f.bits === 32 ? dv.getFloat32(o, true) : dv.getFloat64(o, true);
    if (f.bits === 8) return (dv.getUint8(o) - 128) / 128;
    if (f.bits === 16) return dv.getInt16(o, true) / 32768;
    if (f.bits === 24) return ((dv.getUint8(o) | (dv.getUint8(o + 1) << 8) | (dv.getInt8(o + 2) << 16)) >> 0) / 8388608;
    return dv.getInt32(o, true) / 2147483648;
  };
  const out = new Float32Array(frames);
  for (let i = 0; i < frames; i++) {
    let s = 0;
    for (let c = 0; c < f.channels; c++) s += read(start + i * frame + c * width);
    out[i] = s / f.channels;
  }
  return { rate: f.rate, samples: out };
}

/** Zero crossings of the sinc kernel on each side, and its table resolution per crossing. */
const HALF = 8;
const STEPS = 512;
let kernel: Float64Array | null = null;

/** sinc(x)·Hann over |x| ≤ HALF, tabulated at 1/STEPS. */
function kernelTable(): Float64Array {
  if (!kernel) {
    kernel = new Float64Array(HALF * STEPS + 2);
    for (let i = 0; i < kernel.length; i++) {
      const x = i / STEPS;
      const sinc = x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
      kernel[i] = x >= HALF ? 0 : sinc * (0.5 + 0.5 * Math.cos((Math.PI * x) / HALF));
    }
  }
  return kernel;
}

/**
 * `x` at `from` Hz resampled to `to` Hz by windowed-sinc interpolation; when going down the
 * kernel is widened to low-pass at the new Nyquist frequency, so nothing aliases.
 */
export function resample(x: Float32Array, from: number, to: number): Float32Array {
  if (from === to || x.length === 0) return x;
  const table = kernelTable();
  const scale = Math.min(1, to / from); // the cut-off, as a fraction of the source's Nyquist
  const reach = HALF / scale;
  const out = new Float32Array(Math.max(1, Math.round((x.length * to) / from)));
  for (let j = 0; j < out.length; j++) {
    const t = (j * from) / to;
    const lo = Math.max(0, Math.ceil(t - reach));
    const hi = Math.min(x.length - 1, Math.floor(t + reach));
    let s = 0;
    for (let i = lo; i <= hi; i++) {
      const pos = Math.abs(t - i) * scale * STEPS;
      const k = pos | 0;
      const w = (table[k] as number) + ((table[k + 1] as number) - (table[k] as number)) * (pos - k);
      s += (x[i] as number) * w;
    }
    out[j] = s * scale;
  }
  return out;
}
