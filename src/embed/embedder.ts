/**
 * Dense embedders behind one interface. `id` names the model and its version so every
 * stored vector records what made it: a vector from another id is never compared, and a model
 * change is detectable (and old vectors re-embeddable).
 */
export interface Embedder {
  readonly id: string;
  readonly dim: number;
  /** One L2-normalised vector per text. */
  embedTexts(texts: readonly string[]): Promise<Float32Array[]>;
  /** CLIP-style models: one vector per image, in the same space as the texts'. */
  embedImages?(images: readonly Uint8Array[]): Promise<Float32Array[]>;
  /** false when embedImages is there but this model has no image encoder (it would refuse). */
  readonly hasImages?: boolean;
  /** CLAP-style models: one vector per audio clip (any format ffmpeg reads), in the texts' space. */
  embedAudio?(clips: readonly Uint8Array[]): Promise<Float32Array[]>;
  /** false when embedAudio is there but this model has no audio encoder. */
  readonly hasAudio?: boolean;
}

/** Whether `e` embeds images into its text space (a CLIP-style model is loaded). */
export function embedsImages(e: Embedder): e is Embedder & Required<Pick<Embedder, "embedImages">> {
  return typeof e.embedImages === "function" && e.hasImages !== false;
}

/** Whether `e` embeds audio into its text space (a CLAP-style model is loaded). */
export function embedsAudio(e: Embedder): e is Embedder & Required<Pick<Embedder, "embedAudio">> {
  return typeof e.embedAudio === "function" && e.hasAudio !== false;
}

/** Cosine of two L2-normalised vectors. */
export function cosine(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] as number) * (b[i] as number);
  return s;
}

export function normalise(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n);
  if (n > 0) for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) / n;
  return v;
}
