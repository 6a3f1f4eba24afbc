/**
 * The [tools.media] part of `homed initconfig`'s template (the schema is src/protocol/media.ts,
 * shared with the plugin). It parses to exactly the defaults (test/kernel/config.test.ts).
 */
export { MediaConfig } from "../protocol/media.ts";

export const MEDIA_TEMPLATE = `[tools.media]
# The media_* tools read and write files inside the
# [tools.files] roots. Base URL of an OpenAI-compatible speech API (e.g.
# "https://api.openai.com/v1"): media_say uses its /audio/speech and media_transcribe its
# /audio/transcriptions. Empty: espeak-ng and pocketsphinx (English only), offline.
speech_url = ""
# The API key's name in DATA/secrets.json's "values" (empty: no key is sent).
speech_key_secret = ""
tts_model = "tts-1"
tts_voice = "alloy"
stt_model = "whisper-1"
# tesseract languages for media_ocr when a call names none.
ocr_languages = "eng+chi_sim"
# Largest file a media tool reads (MiB), most PDF pages read, longest run of one program (ms).
max_file_mb = 200
max_pdf_pages = 500
timeout_ms = 120000
# The X display media_screenshot may grab, e.g. ":0". Empty: screenshots of the screen are off.
display = ""
`;
