/**
 * The log-mel features a CLAP-style audio encoder takes (src/embed/log-mel.ts), checked against
 * values computed here another way: frames against a direct O(n²) DFT with the window and the
 * reflect padding written out again, the mel scale against librosa's published points, the
 * filterbank against its defining properties (Slaney area normalisation, peaks at the mel
 * centres), and a pure tone's energy landing in the mel band around its frequency.
 */
import { describe, expect, test } from "bun:test";
import { fft, frameCount, hzToMel, logMel, melFilterbank, melToHz, powerSpectrogram } from "../../src/embed/log-mel.ts";

const CLAP = { sample_rate: 48000, n_fft: 1024, hop: 480, n_mels: 64, f_min: 50, f_max: 14000 };

const sine = (f: number, rate: number, n: number, a = 0.5) =>
  Float32Array.from({ length: n }, (_, i) => a * Math.sin((2 * Math.PI * f * i) / rate));

/** |DFT|² of one centred frame, computed directly (no FFT), with its own Hann and reflection. */
function directPower(x: Float32Array, t: number, nFft: number, hop: number): number[] {
  const pad = nFft / 2;
  const at = (i: number) => {
    // numpy "reflect": x[-1] is x[1], x[n] is x[n-2]
    let j = i;
    while (j < 0 || j >= x.length) j = j < 0 ? -j : 2 * (x.length - 1) - j;
    return x[j] as number;
  };
  const frame = Array.from(
    { length: nFft },
    (_, i) => at(t * hop - pad + i) * (0.5 - 0.5 * Math.cos((2 * Math.PI * i) / nFft)),
  );
  return Array.from({ length: nFft / 2 + 1 }, (_, k) => {
    let re = 0;
    let im = 0;
    for (let i = 0; i < nFft; i++) {
      re += (frame[i] as number) * Math.cos((2 * Math.PI * k * i) / nFft);
      im -= (frame[i] as number) * Math.sin((2 * Math.PI * k * i) / nFft);
    }
    return re * re + im * im;
  });
}

describe("log-mel features", () => {
  test("the FFT matches a direct DFT of a random signal", () => {
    const n = 64;
    const x = Array.from({ length: n }, (_, i) => Math.sin(i * 1.7) + Math.cos(i * i * 0.3));
    const re = Float64Array.from(x);
    const im = new Float64Array(n);
    fft(re, im);
    for (const k of [0, 1, 5, 31, 32, 63]) {
      let dr = 0;
      let di = 0;
      for (let i = 0; i < n; i++) {
        dr += (x[i] as number) * Math.cos((2 * Math.PI * k * i) / n);
        di -= (x[i] as number) * Math.sin((2 * Math.PI * k * i) / n);
      }
      expect(re[k]).toBeCloseTo(dr, 9);
      expect(im[k]).toBeCloseTo(di, 9);
    }
  });

  test("power spectra of centred frames match a direct DFT, ends included", () => {
    const rate = 16000;
    const x = Float32Array.from(sine(440, rate, 4000), (v, i) => v + 0.2 * Math.sin(i * 0.9) * Math.cos(i * 0.013));
    const nFft = 256;
    const hop = 160;
    const spectra = powerSpectrogram(x, nFft, hop);
    expect(spectra).toHaveLength(frameCount(4000, hop));
    expect(spectra).toHaveLength(26);
    for (const t of [0, 1, 12, 25]) {
      const want = directPower(x, t, nFft, hop);
      const got = spectra[t] as Float32Array;
      const peak = Math.max(...want);
      for (let k = 0; k < want.length; k++)
        expect(Math.abs((got[k] as number) - (want[k] as number))).toBeLessThan(1e-5 * peak);
    }
  });

  test("the Slaney mel scale: linear to 1 kHz, logarithmic above", () => {
    expect(hzToMel(0)).toBe(0);
    expect(hzToMel(600)).toBeCloseTo(9, 9);
    expect(hzToMel(1000)).toBeCloseTo(15, 9);
    // 15 + 27·ln(f/1000)/ln(6.4), Slaney's formula (librosa.hz_to_mel, htk=False)
    expect(hzToMel(2000)).toBeCloseTo(25.08188, 4);
    expect(hzToMel(14000)).toBeCloseTo(53.3853, 4);
    for (const f of [50, 440, 999, 1001, 8000, 14000]) expect(melToHz(hzToMel(f))).toBeCloseTo(f, 6);
  });

  test("the filterbank: 64 triangles of equal area, peaking at mel-spaced centres", () => {
    const bank = melFilterbank(CLAP);
    expect(bank).toHaveLength(64);
    const binHz = CLAP.sample_rate / CLAP.n_fft;
    const lo = hzToMel(50);
    const hi = hzToMel(14000);
    for (const [m, row] of bank.entries()) {
      expect(row).toHaveLength(513);
      // Slaney normalisation: each triangle's area over Hz is 1 (to within the bin grid's
      // error, small once a triangle spans many bins).
      const [left, centre, right] = [m, m + 1, m + 2].map((i) => melToHz(lo + ((hi - lo) * i) / 65)) as [
        number,
        number,
        number,
      ];
      const area = row.reduce((s, w) => s + w, 0) * binHz;
      if (right - left > 20 * binHz) expect(Math.abs(area - 1)).toBeLessThan(0.01);
      else expect(Math.abs(area - 1)).toBeLessThan(0.15);
      const peak = row.indexOf(Math.max(...row));
      expect(Math.abs(peak * binHz - centre)).toBeLessThanOrEqual(binHz);
    }
    // Nothing below f_min nor above f_max.
    expect(bank.every((row) => row[0] === 0 && row[1] === 0)).toBe(true);
    expect(bank.every((row) => row.subarray(Math.ceil(14000 / binHz) + 1).every((w) => w === 0))).toBe(true);
  });

  test("a pure tone's energy lands in the mel band around its frequency; the dB values are the bank's", () => {
    const rate = CLAP.sample_rate;
    const x = sine(3000, rate, rate); // 1 s at 3 kHz
    const bank = melFilterbank(CLAP);
    const feats = logMel(x, CLAP, bank);
    const frames = frameCount(rate, CLAP.hop);
    expect(feats).toHaveLength(frames * 64);
    const want = bank.map((row) => row[Math.round(3000 / (rate / CLAP.n_fft))] as number);
    const band = want.indexOf(Math.max(...want));
    for (const t of [3, 50, 97]) {
      const row = Array.from(feats.subarray(t * 64, (t + 1) * 64));
      expect(row.indexOf(Math.max(...row))).toBe(band);
      // The same value computed from the direct DFT and the bank.
      const p = directPower(x, t, CLAP.n_fft, CLAP.hop);
      const e = (bank[band] as Float32Array).reduce((s, w, k) => s + w * (p[k] as number), 0);
      expect(row[band]).toBeCloseTo(10 * Math.log10(e), 3);
      // Far from the tone, the bands are much quieter.
      expect(row[band] as number).toBeGreaterThan((row[5] as number) + 40);
    }
  });

  test("silence is floored at −100 dB; ten seconds at 48 kHz make CLAP's 1001 frames", () => {
    const feats = logMel(new Float32Array(48000 * 10), CLAP);
    expect(feats).toHaveLength(1001 * 64);
    expect(feats.every((v) => v === -100)).toBe(true);
  });
});
