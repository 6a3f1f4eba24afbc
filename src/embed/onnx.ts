/**
 * A dense text embedder from an ONNX model directory (DATA/models/<name>/): homed-model.json
 * says which file is the model, which vocabulary tokenizes for it, which inputs it takes and
 * how its output becomes one vector per text. Vectors are L2-normalised.
 *
 *   { "id": "multilingual-e5-small@1",
 *     "text": { "model": "model.onnx", "vocab": "vocab.txt", "max_tokens": 512,
 *               "inputs": { "ids": "input_ids", "mask": "attention_mask", "types": "token_type_ids" },
 *               "output": "last_hidden_state", "pooling": "mean", "prefix": "query: " } }
 *
 * An optional `image` section makes it a CLIP-style pair, an optional `audio` section a
 * CLAP-style one: encoders whose vectors share the text encoder's space.
 */
import * as v from "valibot";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { HomedError } from "../protocol/errors.ts";
import { describeIssues } from "../protocol/jsonrpc.ts";
import { normalise, type Embedder } from "./embedder.ts";
import { onnxRuntime } from "./ort.ts";
import { WordPiece } from "./wordpiece.ts";

export const MODEL_MANIFEST = "homed-model.json";

const ModelManifest = v.object({
  id: v.pipe(v.string(), v.minLength(1)),
  text: v.object({
    model: v.string(),
    vocab: v.string(),
    lowercase: v.optional(v.boolean(), true),
    max_tokens: v.optional(v.pipe(v.number(), v.integer(), v.minValue(4), v.maxValue(8192)), 512),
    inputs: v.object({ ids: v.string(), mask: v.optional(v.string()), types: v.optional(v.string()) }),
    output: v.string(),
    /** none: the output is already [batch, dim]; mean/cls: pool [batch, tokens, dim]. */
    pooling: v.optional(v.picklist(["none", "mean", "cls"]), "mean"),
    prefix: v.optional(v.string(), ""),
  }),
  /** A CLIP-style pair: an image encoder whose vectors share the text encoder's space. */
  image: v.optional(
    v.object({
      model: v.string(),
      size: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(4096)), 224),
      mean: v.optional(v.tuple([v.number(), v.number(), v.number()]), [0.48145466, 0.4578275, 0.40821073]),
      std: v.optional(v.tuple([v.number(), v.number(), v.number()]), [0.26862954, 0.26130258, 0.27577711]),
      input: v.optional(v.string(), "pixel_values"),
      output: v.optional(v.string(), "image_embeds"),
    }),
  ),
  /**
   * A CLAP-style pair: an audio encoder taking mono audio at sample_rate, max_seconds at a time,
   * as the waveform (float32 [1, samples]) or as log-mel features (float32 [1, 1, frames, n_mels];
   * the defaults are CLAP HTSAT's).
   */
  audio: v.optional(
    v.pipe(
      v.object({
        model: v.string(),
        sample_rate: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1000), v.maxValue(192_000)), 48_000),
        max_seconds: v.optional(v.pipe(v.number(), v.minValue(0.1), v.maxValue(60)), 10),
        form: v.optional(v.picklist(["waveform", "log-mel"]), "log-mel"),
        input: v.optional(v.string()),
        output: v.optional(v.string(), "audio_embeds"),
        n_fft: v.optional(
          v.pipe(
            v.number(),
            v.integer(),
            v.check((n) => n >= 16 && n <= 16384 && (n & (n - 1)) === 0, "n_fft must be a power of two, 16 to 16384"),
          ),
          1024,
        ),
        hop: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(16384)), 480),
        n_mels: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(512)), 64),
        f_min: v.optional(v.pipe(v.number(), v.minValue(0)), 50),
        f_max: v.optional(v.pipe(v.number(), v.minValue(1)), 14_000),
      }),
      v.check(
        (a) => a.form === "waveform" || (a.f_min < a.f_max && a.f_max <= a.sample_rate / 2),
        "f_min must be below f_max, and f_max at most half the sample_rate",
      ),
      // The input's name: CLAP's log-mel exports call it input_features, waveform ones input_values.
      v.transform((a) => ({ ...a, input: a.input ?? (a.form === "log-mel" ? "input_features" : "input_values") })),
    ),
  ),
});
export type ModelManifest = v.InferOutput<typeof ModelManifest>;

export function readModelManifest(dir: string): ModelManifest {
  const file = join(dir, MODEL_MANIFEST);
  if (!existsSync(file)) throw new HomedError("not_found", `${dir} has no ${MODEL_MANIFEST}`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw new HomedError("invalid_params", `${file}: not JSON: ${(err as Error).message}`, { file }, { cause: err });
  }
  const r = v.safeParse(ModelManifest, raw);
  if (!r.success) throw new HomedError("invalid_params", `${file}: ${describeIssues(r.issues)}`);
  return r.output;
}

/** The WordPiece vocabulary at `file`: not_found when it is missing, invalid_params when it is unusable. */
function readVocabulary(file: string, lowercase: boolean | undefined): WordPiece {
  if (!existsSync(file)) throw new HomedError("not_found", `${file}: no such file`, { file });
  try {
    return new WordPiece(readFileSync(file, "utf8"), lowercase);
  } catch (err) {
    throw new HomedError("invalid_params", `${file}: ${(err as Error).message}`, { file }, { cause: err });
  }
}

type Session = Awaited<ReturnType<ReturnType<typeof onnxRuntime>["InferenceSession"]["create"]>>;

export class OnnxEmbedder implements Embedder {
  private constructor(
    readonly id: string,
    readonly dim: number,
    private readonly m: ModelManifest["text"],
    private readonly session: Session,
    private readonly tokenizer: WordPiece,
    private readonly image: { m: NonNullable<ModelManifest["image"]>; session: Session } | null,
    private readonly audio: { m: NonNullable<ModelManifest["audio"]>; session: Session } | null = null,
  ) {}

  /** Load the model in `dir` and probe it once to learn its dimension. */
  static async load(dir: string): Promise<OnnxEmbedder> {
    const manifest = readModelManifest(dir);
    const m = manifest.text;
    const ort = onnxRuntime();
    const open = async (file: string): Promise<Session> => {
      try {
        return await ort.InferenceSession.create(join(dir, file));
      } catch (err) {
        throw new HomedError(
          existsSync(join(dir, file)) ? "native" : "not_found",
          `cannot load ${join(dir, file)}: ${(err as Error).message}`,
          { file: join(dir, file) },
          { cause: err },
        );
      }
    };
    const session = await open(m.model);
    const image = manifest.image ? { m: manifest.image, session: await open(manifest.image.model) } : null;
    const audio = manifest.audio ? { m: manifest.audio, session: await open(manifest.audio.model) } : null;
    const tokenizer = readVocabulary(join(dir, m.vocab), m.lowercase);
    const probe = new OnnxEmbedder(manifest.id, 0, m, session, tokenizer, image);
    const [vec] = await probe.run(["probe"]);
    return new OnnxEmbedder(manifest.id, (vec as Float32Array).length, m, session, tokenizer, image, audio);
  }

  /** Whether this model embeds images too (a CLIP-style pair). */
  get hasImages(): boolean {
    return this.image !== null;
  }

  /** Whether this model embeds audio too (a CLAP-style pair). */
  get hasAudio(): boolean {
    return this.audio !== null;
  }

  /**
   * One vector per clip. A clip longer than the model's window is embedded in up to three
   * windows spread over it (src/embed/audio.ts) and its vector is their normalised mean.
   */
  async embedAudio(clips: readonly Uint8Array[]): Promise<Float32Array[]> {
    if (!this.audio) throw new HomedError("not_found", `${this.id} has no audio encoder`);
    const { m, session } = this.audio;
    const ort = onnxRuntime();
    const { audioInputs } = await import("./audio.ts");
    const out: Float32Array[] = [];
    for (const bytes of clips) {
      const sum = new Float32Array(this.dim);
      for (const input of await audioInputs(bytes, m)) {
        const result = await session.run({ [m.input]: new ort.Tensor("float32", input.data, input.dims) });
        const vec = this.vectorOf(result[m.output], m.output, "audio");
        for (let i = 0; i < sum.length; i++) sum[i] = (sum[i] as number) + (vec[i] as number);
      }
      out.push(normalise(sum));
    }
    return out;
  }

  /** The first row of an encoder's output, normalised, checked to be in the text space. */
  private vectorOf(
    t: { data: unknown; dims: readonly number[] } | undefined,
    name: string,
    what: string,
  ): Float32Array {
    if (!t) throw new HomedError("invalid_params", `${what} model has no output ${name}`);
    const vec = Float32Array.from((t.data as Float32Array).subarray(0, t.dims[t.dims.length - 1] as number));
    if (vec.length !== this.dim)
      throw new HomedError(
        "conflict",
        `${what} vectors have ${vec.length} dimensions, text vectors ${this.dim}: not one space`,
      );
    return normalise(vec);
  }

  async embedImages(images: readonly Uint8Array[]): Promise<Float32Array[]> {
    if (!this.image) throw new HomedError("not_found", `${this.id} has no image encoder`);
    const { m, session } = this.image;
    const ort = onnxRuntime();
    const { imageTensor } = await import("./image.ts");
    const out: Float32Array[] = [];
    for (const bytes of images) {
      const pixels = await imageTensor(bytes, { size: m.size, mean: m.mean, std: m.std });
      const result = await session.run({ [m.input]: new ort.Tensor("float32", pixels, [1, 3, m.size, m.size]) });
      out.push(this.vectorOf(result[m.output], m.output, "image"));
    }
    return out;
  }

  embedTexts(texts: readonly string[]): Promise<Float32Array[]> {
    return this.run(texts);
  }

  private async run(texts: readonly string[]): Promise<Float32Array[]> {
    const ort = onnxRuntime();
    const out: Float32Array[] = [];
    // One text at a time: no padding waste, and a board's memory never holds a big batch.
    for (const text of texts) {
      const ids = this.tokenizer.encode(this.m.prefix + text, this.m.max_tokens);
      const n = ids.length;
      const feeds: Record<string, InstanceType<typeof ort.Tensor>> = {
        [this.m.inputs.ids]: new ort.Tensor("int64", BigInt64Array.from(ids.map(BigInt)), [1, n]),
      };
      if (this.m.inputs.mask)
        feeds[this.m.inputs.mask] = new ort.Tensor("int64", new BigInt64Array(n).fill(1n), [1, n]);
      if (this.m.inputs.types) feeds[this.m.inputs.types] = new ort.Tensor("int64", new BigInt64Array(n), [1, n]);
      const result = await this.session.run(feeds);
      const t = result[this.m.output];
      if (!t) throw new HomedError("invalid_params", `model has no output ${this.m.output}`);
      const data = t.data as Float32Array;
      const dims = t.dims;
      let vec: Float32Array;
      if (this.m.pooling === "none" || dims.length === 2)
        vec = Float32Array.from(data.subarray(0, dims[dims.length - 1] as number));
      else {
        const d = dims[2] as number;
        const tokens = dims[1] as number;
        vec = new Float32Array(d);
        if (this.m.pooling === "cls") vec.set(data.subarray(0, d));
        else {
          for (let i = 0; i < tokens; i++)
            for (let j = 0; j < d; j++) vec[j] = (vec[j] as number) + (data[i * d + j] as number) / tokens;
        }
      }
      out.push(normalise(vec));
    }
    return out;
  }
}
