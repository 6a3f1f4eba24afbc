/**
 * `[llm] images`: whether tool-result images are sent to the model. "on" always sends them, "off"
 * never does (each becomes an "[image: … omitted]" line), "auto" sends them until the provider
 * refuses: a 400 whose message speaks of images, vision or multimodal input is taken to mean the
 * model reads no images — the call is made once more without them, and that model is remembered
 * (for the life of the daemon) so later calls do not pay the refusal again.
 */
import { sendsImages, withoutImageData } from "./image-parts.ts";
import type { ChatRequest, LanguageModel, StreamEvent } from "./types.ts";

export const IMAGE_MODES = ["auto", "on", "off"] as const;
export type ImageMode = (typeof IMAGE_MODES)[number];

/** Models known to refuse images, by whatever key the owner gives (provider, URL, model). */
export class ImageRefusals {
  private readonly refused = new Set<string>();
  has(key: string): boolean {
    return this.refused.has(key);
  }
  add(key: string): void {
    this.refused.add(key);
  }
}

/** A refusal of the images themselves, as providers word it (OpenAI, vLLM, Ollama, llama.cpp, Anthropic). */
const IMAGE_COMPLAINT = /image|vision|multi-?modal/i;

function refusesImages(ev: StreamEvent): boolean {
  return (
    ev.type === "finish" &&
    ev.stopReason === "error" &&
    ev.error?.kind === "bad_request" &&
    (ev.error.status === 400 || ev.error.status === null) &&
    IMAGE_COMPLAINT.test(ev.error.message)
  );
}

/** `model` with the image policy `mode`; `key` names the model in `refusals`. */
export function withImageFallback(
  model: LanguageModel,
  mode: ImageMode,
  refusals: ImageRefusals,
  key: string,
): LanguageModel {
  const strip = (r: ChatRequest): ChatRequest => ({ ...r, messages: withoutImageData(r.messages) });
  return {
    kind: model.kind,
    model: model.model,
    async *stream(request, signal) {
      if (!sendsImages(request.messages) || mode === "on") return yield* model.stream(request, signal);
      if (mode === "off" || refusals.has(key)) return yield* model.stream(strip(request), signal);
      let first = true;
      for await (const ev of model.stream(request, signal)) {
        // A refusal comes before any output (an HTTP 400), so nothing was passed on yet.
        if (first && refusesImages(ev)) {
          refusals.add(key);
          return yield* model.stream(strip(request), signal);
        }
        first = false;
        yield ev;
      }
    },
  };
}
