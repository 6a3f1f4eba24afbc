/**
 * Log-mel features for a CLAP-style audio encoder (HTSAT takes them): a centred STFT with a
 * periodic Hann window and a radix-2 real FFT, the power spectrum through a Slaney-scale,
 * Slaney-normalised triangular mel filterbank, then 10·log10 (dB, floored at 1e-10). This is
 * what Hugging Face's ClapFeatureExtractor computes for the unfused models; the result is laid
 * out frames × mels, row by row, as the model's [1, 1, frames, n_mels] input wants.
 */

export interface MelSettings {
  sample_rate: number;
  n_fft: number;
  hop: number;
  n_mels: number;
  f_min: number;
  f_max: number;
}

/** Slaney's mel scale: linear below 1 kHz, logarithmic above (librosa's default, htk=false). */
export function hzToMel(f: number): number {
  const minLogHz = 1000;
  const minLogMel = 15; // 1000 Hz / (200/3)
  const logStep = Math.log(6.4) / 27;
  return f < minLogHz ? (3 * f) / 200 : minLogMel + Math.log(f / minLogHz) / logStep;
}

export function melToHz(m: number): number {
  const minLogMel = 15;
  const logStep = Math.log(6.4) / 27;
  return m < minLogMel ? (200 * m) / 3 : 1000 * Math.exp(logStep * (m - minLogMel));
}

/**
 * The filterbank, n_mels rows of n_fft/2+1 weights: triangles between mel-spaced edges, each
 * scaled by 2/(right edge − left edge) in Hz (Slaney normalisation: equal area).
 */
export function melFilterbank(s: MelSettings): Float32Array[] {
  const bins = s.n_fft / 2 + 1;
  const lo = hzToMel(s.f_min);
  const hi = hzToMel(s.f_max);
  const edges = Array.from({ length: s.n_mels + 2 }, (_, i) => melToHz(lo + ((hi - lo) * i) / (s.n_mels + 1)));
  const rows: Float32Array[] = [];
  for (let m = 0; m < s.n_mels; m++) {
    const [left, centre, right] = [edges[m] as number, edges[m + 1] as number, edges[m + 2] as number];
    const norm = 2 / (right - left);
    const row = new Float32Array(bins);
    for (let k = 0; k < bins; k++) {
      const f = (k * s.sample_rate) / s.n_fft;
      const w = Math.min((f - left) / (centre - left), (right - f) / (right - centre));
      if (w > 0) row[k] = w * norm;
    }
    rows.push(row);
  }
  return rows;
}

/** In-place iterative radix-2 FFT of (re, im); the length must be a power of two. */
export function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j] as number, re[i] as number];
      [im[i], im[j]] = [im[j] as number, im[i] as number];
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const ang = (-2 * Math.PI) / len;
    const wr = Math.cos(ang);
    const wi = Math.sin(ang);
    for (let i = 0; i < n; i += len) {
      let cr = 1;
      let ci = 0;
      for (let k = 0; k < len / 2; k++) {
        const a = i + k;
        const b = a + len / 2;
        const tr = (re[b] as number) * cr - (im[b] as number) * ci;
        const ti = (re[b] as number) * ci + (im[b] as number) * cr;
        re[b] = (re[a] as number) - tr;
        im[b] = (im[a] as number) - ti;
        re[a] = (re[a] as number) + tr;
        im[a] = (im[a] as number) + ti;
        const nr = cr * wr - ci * wi;
        ci = cr * wi + ci * wr;
        cr = nr;
      }
    }
  }
}

/** Frames a centred STFT makes of `samples` samples. */
export const frameCount = (samples: number, hop: number) => 1 + Math.floor(samples / hop);

/** The periodic Hann window of length n (as torch and transformers use for STFTs). */
export function hann(n: number): Float64Array {
  return Float64Array.from({ length: n }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n));
}

/** x[i] with the signal reflected at both ends (numpy's "reflect" padding, edge not repeated). */
function reflected(x: Float32Array, i: number): number {
  const n = x.length;
  if (n === 1) return x[0] as number;
  const period = 2 * (n - 1);
  let j = ((i % period) + period) % period;
  if (j >= n) j = period - j;
  return x[j] as number;
}

/**
 * Power spectra of the centred frames of `x`: frames × (n_fft/2+1) values. Each frame is
 * x[t·hop − n_fft/2 …] (reflect-padded at the ends) times the window.
 */
export function powerSpectrogram(x: Float32Array, nFft: number, hop: number): Float32Array[] {
  const window = hann(nFft);
  const bins = nFft / 2 + 1;
  const re = new Float64Array(nFft);
  const im = new Float64Array(nFft);
  const out: Float32Array[] = [];
  const frames = frameCount(x.length, hop);
  for (let t = 0; t < frames; t++) {
    const start = t * hop - nFft / 2;
    for (let i = 0; i < nFft; i++) {
      re[i] = reflected(x, start + i) * (window[i] as number);
      im[i] = 0;
    }
    fft(re, im);
    const p = new Float32Array(bins);
    for (let k = 0; k < bins; k++) p[k] = (re[k] as number) ** 2 + (im[k] as number) ** 2;
    out.push(p);
  }
  return out;
}

/** Log-mel features of mono `x` at s.sample_rate: frames × n_mels values, frame after frame. */
export function logMel(x: Float32Array, s: MelSettings, bank = melFilterbank(s)): Float32Array {
  const spectra = powerSpectrogram(x, s.n_fft, s.hop);
  // Each triangle covers a few bins: sum only over its non-zero span.
  const spans = bank.map((row) => {
    let a = row.findIndex((w) => w !== 0);
    if (a < 0) a = row.length;
    let b = row.length;
    while (b > a && row[b - 1] === 0) b--;
    return [a, b] as const;
  });
  const out = new Float32Array(spectra.length * s.n_mels);
  spectra.forEach((p, t) => {
    for (let m = 0; m < s.n_mels; m++) {
      const row = bank[m] as Float32Array;
      const [a, b] = spans[m] as readonly [number, number];
      let e = 0;
      for (let k = a; k < b; k++) e += (row[k] as number) * (p[k] as number);
      out[t * s.n_mels + m] = 10 * Math.log10(Math.max(e, 1e-10));
    }
  });
  return out;
}
