/**
 * [tools.media]: every default works offline with Debian's binaries and sends nothing anywhere.
 * The media_* tools read and write files inside the [tools.files] roots. Read when the plugin
 * starts; the speech API key is resolved from DATA/secrets.json for this plugin alone.
 */
import * as v from "valibot";
import { defineSettings, setting, wholeNumber } from "../../src/protocol/plugin-settings.ts";

const nonEmpty = v.pipe(v.string(), v.minLength(1, "must not be empty"));

export const MediaConfig = v.strictObject({
  speech_url: setting(
    v.pipe(
      v.string(),
      v.check((s) => s === "" || /^https?:\/\/\S+$/.test(s), "must be an http(s) URL or empty"),
    ),
    "",
    `Base URL of an OpenAI-compatible speech API (e.g. "https://api.openai.com/v1"): media_say
uses its /audio/speech and media_transcribe its /audio/transcriptions. Empty: espeak-ng and
pocketsphinx (English only), offline.`,
  ),
  speech_key_secret: setting(
    v.pipe(v.string(), v.regex(/^[A-Za-z0-9_.-]{0,64}$/, "must be a secret name")),
    "",
    `The API key's name in DATA/secrets.json's "values" (empty: no key is sent).`,
  ),
  tts_model: setting(nonEmpty, "tts-1", "The speech API's text-to-speech model."),
  tts_voice: setting(nonEmpty, "alloy", "The voice media_say speaks with."),
  stt_model: setting(nonEmpty, "whisper-1", "The speech API's transcription model."),
  ocr_languages: setting(
    v.pipe(v.string(), v.regex(/^[A-Za-z_]+(\+[A-Za-z_]+)*$/, "must be tesseract languages like eng+chi_sim")),
    "eng+chi_sim",
    "tesseract languages for media_ocr when a call names none.",
  ),
  max_file_mb: setting(wholeNumber(1, 4096), 200, "Largest file a media tool reads (MiB)."),
  max_pdf_pages: setting(wholeNumber(1, 100_000), 500, "Pages of one PDF read at most."),
  timeout_ms: setting(
    wholeNumber(1000, 3_600_000),
    120_000,
    "Longest run of one program (pdftotext, tesseract, ffmpeg...), ms.",
  ),
  display: setting(
    v.pipe(v.string(), v.regex(/^([A-Za-z0-9.-]*:\d+(\.\d+)?)?$/, "must be like :0 or empty")),
    "",
    `The X display media_screenshot may grab, e.g. ":0". Empty: screenshots of the screen are off.`,
  ),
});
export type MediaConfig = v.InferOutput<typeof MediaConfig>;

export const SETTINGS = defineSettings({
  doc: "The media_* tools read and write files inside the [tools.files] roots.",
  schema: MediaConfig,
  reload: "daemon-restart",
});
