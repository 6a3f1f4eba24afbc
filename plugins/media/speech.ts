/**
 * Voice both ways. With [tools.media] speech_url set, an OpenAI-compatible API: POST
 * /audio/speech (JSON in, audio out) and POST /audio/transcriptions (multipart: file, model;
 * JSON {text} out), with the key from DATA/secrets.json when one is named. Without it, offline:
 * espeak-ng speaks (WAV), and pocketsphinx transcribes English only (Debian's en-us model;
 * rough on anything but clear speech) after ffmpeg makes the 16 kHz mono WAV it needs.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import * as v from "valibot";
import { MediaError } from "./media-error.ts";
import type { Scratch } from "./media-files.ts";
import { type RunOptions, runProgram } from "./programs.ts";
import { audioTrack } from "./video.ts";

export interface SpeechSettings {
  speech_url: string;
  speech_key?: string;
  tts_model: string;
  tts_voice: string;
  stt_model: string;
}

/** Where Debian's pocketsphinx-en-us puts its model (package pocketsphinx-en-us). */
const SPHINX_MODEL = "/usr/share/pocketsphinx/model/en-us";
/** Longest reply of a speech API read (bytes): ~25 minutes of MP3. */
const MAX_API_AUDIO = 50 * 1048576;

function endpoint(s: SpeechSettings, path: string): string {
  return `${s.speech_url.replace(/\/+$/, "")}${path}`;
}
function auth(s: SpeechSettings): Record<string, string> {
  return s.speech_key ? { Authorization: `Bearer ${s.speech_key}` } : {};
}
async function apiError(res: Response, what: string): Promise<MediaError> {
  const body = (await res.text().catch(() => "")).slice(0, 300).replace(/\s+/g, " ");
  return new MediaError(`the speech API's ${what} answered HTTP ${res.status}: ${body || res.statusText}`);
}

export interface SpeechAudio {
  bytes: Uint8Array;
  /** File extension of the audio: wav (espeak-ng) or what the API was asked for. */
  ext: string;
  how: string;
}

/** Text to audio: the API when configured, else espeak-ng (voice: an espeak-ng voice such as en-us, zh). */
export async function say(
  text: string,
  voice: string | undefined,
  s: SpeechSettings,
  scratch: Scratch,
  opts: RunOptions,
): Promise<SpeechAudio> {
  if (s.speech_url) {
    const res = await fetch(endpoint(s, "/audio/speech"), {
      method: "POST",
      headers: { "Content-Type": "application/json", ...auth(s) },
      body: JSON.stringify({ model: s.tts_model, voice: voice ?? s.tts_voice, input: text, response_format: "mp3" }),
      signal: AbortSignal.any([opts.signal, AbortSignal.timeout(opts.timeoutMs)]),
    }).catch((err: Error) => {
      throw new MediaError(`the speech API at ${s.speech_url} cannot be reached: ${err.message}`);
    });
    if (!res.ok) throw await apiError(res, "/audio/speech");
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (bytes.length === 0) throw new MediaError("the speech API answered with no audio");
    if (bytes.length > MAX_API_AUDIO) throw new MediaError("the speech API answered with more than 50 MiB of audio");
    return { bytes, ext: "mp3", how: `${s.tts_model} (${voice ?? s.tts_voice}) at ${s.speech_url}` };
  }
  const input = scratch.path("say.txt");
  const out = scratch.path("say.wav");
  writeFileSync(input, text);
  await runProgram("espeak-ng", ["-v", voice ?? "en-us", "-f", input, "-w", out], opts);
  return { bytes: new Uint8Array(readFileSync(out)), ext: "wav", how: `espeak-ng (${voice ?? "en-us"}, offline)` };
}

const Transcription = v.object({ text: v.string() });

/**
 * Audio or video (any format ffmpeg reads) to text. The offline path converts once to the 16 kHz
 * WAV pocketsphinx reads; the API gets audio as it is, and a video's track cut out first (the API
 * need not take video).
 */
export async function transcribe(
  file: string,
  name: string,
  s: SpeechSettings,
  scratch: Scratch,
  opts: RunOptions,
  video = false,
): Promise<{ text: string; how: string }> {
  if (s.speech_url) {
    const form = new FormData();
    const audio = video ? await audioTrack(file, scratch, opts) : file;
    form.append("file", new Blob([readFileSync(audio)]), video ? "track.wav" : name);
    form.append("model", s.stt_model);
    form.append("response_format", "json");
    const res = await fetch(endpoint(s, "/audio/transcriptions"), {
      method: "POST",
      headers: auth(s),
      body: form,
      signal: AbortSignal.any([opts.signal, AbortSignal.timeout(opts.timeoutMs)]),
    }).catch((err: Error) => {
      throw new MediaError(`the speech API at ${s.speech_url} cannot be reached: ${err.message}`);
    });
    if (!res.ok) throw await apiError(res, "/audio/transcriptions");
    const parsed = v.safeParse(Transcription, await res.json().catch(() => null));
    if (!parsed.success) throw new MediaError("the speech API's /audio/transcriptions answer has no text field");
    return { text: parsed.output.text.trim(), how: `${s.stt_model} at ${s.speech_url}` };
  }
  if (!existsSync(`${SPHINX_MODEL}/en-us/mdef`))
    throw new MediaError(
      `offline transcription needs pocketsphinx's English model: apt install pocketsphinx pocketsphinx-en-us (or set [tools.media] speech_url)`,
    );
  const wav = await audioTrack(file, scratch, opts).catch((err: Error) => {
    throw new MediaError(`no audio could be read from it: ${err.message}`);
  });
  const r = await runProgram(
    "pocketsphinx_continuous",
    [
      "-hmm",
      `${SPHINX_MODEL}/en-us`,
      "-lm",
      `${SPHINX_MODEL}/en-us.lm.bin`,
      "-dict",
      `${SPHINX_MODEL}/cmudict-en-us.dict`,
      "-infile",
      wav,
      "-logfn",
      "/dev/null",
    ],
    opts,
  );
  return {
    text: r.stdout
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean)
      .join(" "),
    how: "pocketsphinx (offline, English only)",
  };
}
