/**
 * What homed itself spends to turn a 10 s audio clip into a CLAP HTSAT encoder's input (issue 15),
 * at CLAP's defaults (48 kHz, n_fft 1024, hop 480, 64 mels: a [1, 1, 1001, 64] tensor):
 *   blocks.audio_features_ms — an Opus voice message (Ogg, as QQ or a phone sends it) decoded by
 *     ffmpeg to 48 kHz mono and turned into log-mel features (src/embed/audio.ts audioInputs);
 *   blocks.audio_features_wav_ms — the same from a 44.1 kHz stereo WAV, read and resampled in
 *     process (no ffmpeg);
 *   blocks.audio_logmel_ms — the log-mel features alone (STFT + filterbank + dB).
 * Medians of 7 runs. The encoder's own time is not measured: the tiny test model's inference is
 * next to nothing, and a real CLAP (HTSAT, ~30 M parameters) costs far more than these figures.
 */
import { logMel, melFilterbank } from "../src/embed/log-mel.ts";
import { audioInputs } from "../src/embed/audio.ts";
import { sineWav } from "../test/harness/tiny-onnx.ts";
import { median, report } from "./report.ts";

const CLAP = {
  sample_rate: 48000,
  max_seconds: 10,
  form: "log-mel" as const,
  n_fft: 1024,
  hop: 480,
  n_mels: 64,
  f_min: 50,
  f_max: 14000,
};
const RUNS = 7;

async function timed(f: () => Promise<unknown> | unknown): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await f();
    xs.push(performance.now() - t0);
  }
  return median(xs);
}

export async function benchAudioFeatures(): Promise<void> {
  const wav = sineWav(440, 10, 44100, 2);
  const enc = Bun.spawn(
    ["ffmpeg", "-hide_banner", "-loglevel", "error", "-i", "pipe:0", "-c:a", "libopus", "-f", "ogg", "pipe:1"],
    {
      stdin: new Blob([wav]),
      stdout: "pipe",
    },
  );
  const ogg = new Uint8Array(await new Response(enc.stdout).arrayBuffer());
  if ((await enc.exited) !== 0) throw new Error("ffmpeg could not make the Opus clip");
  const check = await audioInputs(ogg, CLAP);
  if (check.length !== 1 || check[0]?.dims.join("×") !== "1×1×1001×64")
    throw new Error(`unexpected features: ${check.map((c) => c.dims.join("×"))}`);
  report("blocks.audio_features_ms", await timed(() => audioInputs(ogg, CLAP)), "ms");
  report("blocks.audio_features_wav_ms", await timed(() => audioInputs(wav, CLAP)), "ms");
  const x = new Float32Array(480_000).map((_, i) => Math.sin(i / 7));
  const bank = melFilterbank(CLAP);
  report("blocks.audio_logmel_ms", await timed(() => logMel(x, CLAP, bank)), "ms");
}
