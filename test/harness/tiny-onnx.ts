/**
 * A tiny ONNX text embedder made by the test itself (onnx-proto): token ids → Gather from a
 * fixed table → mean over tokens → one vector. Small enough to check its output by hand, real
 * enough to exercise loading, tokenizing, the runtime and the embedded library.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { onnx } from "onnx-proto";

const T = onnx.TensorProto.DataType;
const A = onnx.AttributeProto.AttributeType;

/** An ONNX model (opset 13) around `graph`, encoded. */
function encodeModel(graph: onnx.IGraphProto): Uint8Array {
  return onnx.ModelProto.encode(
    onnx.ModelProto.create({
      irVersion: 8,
      opsetImport: [{ domain: "", version: 13 }],
      producerName: "homed-test",
      graph,
    }),
  ).finish();
}

export const TINY_VOCAB = [
  "[PAD]",
  "[UNK]",
  "[CLS]",
  "[SEP]",
  "hello",
  "world",
  "dog",
  "你",
  "好",
  "##s",
  "play",
  "##ing",
  ".",
  "!",
  "cat",
  "hound",
];
export const TINY_DIM = 4;

/** The embedding table: row i is the vector of token i. */
export function tinyTable(): Float32Array {
  return new Float32Array(TINY_VOCAB.length * TINY_DIM).map((_, i) => Math.sin(i + 1));
}

/** What the model must return for these token ids: the normalised mean of their rows. */
export function expectedVector(ids: number[]): number[] {
  const t = tinyTable();
  const v = new Array<number>(TINY_DIM).fill(0);
  for (const id of ids)
    for (let j = 0; j < TINY_DIM; j++) v[j] = (v[j] as number) + (t[id * TINY_DIM + j] as number) / ids.length;
  const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return v.map((x) => x / n);
}

/**
 * The same table shaped like a BERT export (what `homed models pull` installs): inputs
 * input_ids, attention_mask, token_type_ids (the last two unused), output last_hidden_state
 * [1, tokens, dim] — so CLS pooling returns the [CLS] row.
 */
export function tinyBertBytes(): Uint8Array {
  const table = tinyTable();
  const seq = (name: string) => ({
    name,
    type: { tensorType: { elemType: T.INT64, shape: { dim: [{ dimValue: 1 }, { dimParam: "n" }] } } },
  });
  return encodeModel({
    name: "tiny-bert",
    node: [
      {
        opType: "Gather",
        input: ["table", "input_ids"],
        output: ["last_hidden_state"],
        attribute: [{ name: "axis", type: A.INT, i: 0 }],
      },
    ],
    initializer: [
      { name: "table", dataType: T.FLOAT, dims: [TINY_VOCAB.length, TINY_DIM], rawData: new Uint8Array(table.buffer) },
    ],
    input: [seq("input_ids"), seq("attention_mask"), seq("token_type_ids")],
    output: [
      {
        name: "last_hidden_state",
        type: {
          tensorType: {
            elemType: T.FLOAT,
            shape: { dim: [{ dimValue: 1 }, { dimParam: "n" }, { dimValue: TINY_DIM }] },
          },
        },
      },
    ],
  });
}

export function writeTinyModel(dir: string, id = "tiny@1"): void {
  mkdirSync(dir, { recursive: true });
  const table = tinyTable();
  const model = encodeModel({
    name: "tiny",
    node: [
      {
        opType: "Gather",
        input: ["table", "input_ids"],
        output: ["emb"],
        attribute: [{ name: "axis", type: A.INT, i: 0 }],
      },
      {
        opType: "ReduceMean",
        input: ["emb"],
        output: ["sentence_embedding"],
        attribute: [
          { name: "axes", type: A.INTS, ints: [1] },
          { name: "keepdims", type: A.INT, i: 0 },
        ],
      },
    ],
    initializer: [
      { name: "table", dataType: T.FLOAT, dims: [TINY_VOCAB.length, TINY_DIM], rawData: new Uint8Array(table.buffer) },
    ],
    input: [
      {
        name: "input_ids",
        type: { tensorType: { elemType: T.INT64, shape: { dim: [{ dimValue: 1 }, { dimParam: "n" }] } } },
      },
    ],
    output: [
      {
        name: "sentence_embedding",
        type: { tensorType: { elemType: T.FLOAT, shape: { dim: [{ dimValue: 1 }, { dimValue: TINY_DIM }] } } },
      },
    ],
  });
  writeFileSync(join(dir, "model.onnx"), model);
  writeFileSync(join(dir, "vocab.txt"), `${TINY_VOCAB.join("\n")}\n`);
  writeFileSync(
    join(dir, "homed-model.json"),
    JSON.stringify({
      id,
      text: {
        model: "model.onnx",
        vocab: "vocab.txt",
        max_tokens: 32,
        inputs: { ids: "input_ids" },
        output: "sentence_embedding",
        pooling: "none",
      },
    }),
  );
}

/** The tiny image encoder's projection: channel means [r, g, b] → 4 dimensions. */
export const TINY_IMAGE_W = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1];

/**
 * A tiny CLIP-style pair: the text model above plus an image model (pixel_values [1,3,8,8] →
 * mean per channel → a 3×4 projection → image_embeds [1,4]), in the same 4-dimensional space.
 * Mean 0 and std 1, so a pure red image has channel means [1, 0, 0].
 */
export function writeTinyClip(dir: string): void {
  writeTinyModel(dir, "tiny-clip@1");
  const model = encodeModel({
    name: "tiny-image",
    node: [
      {
        opType: "ReduceMean",
        input: ["pixel_values"],
        output: ["means"],
        attribute: [
          { name: "axes", type: A.INTS, ints: [2, 3] },
          { name: "keepdims", type: A.INT, i: 0 },
        ],
      },
      { opType: "MatMul", input: ["means", "w"], output: ["image_embeds"] },
    ],
    initializer: [
      {
        name: "w",
        dataType: T.FLOAT,
        dims: [3, TINY_DIM],
        rawData: new Uint8Array(new Float32Array(TINY_IMAGE_W).buffer),
      },
    ],
    input: [
      {
        name: "pixel_values",
        type: {
          tensorType: {
            elemType: T.FLOAT,
            shape: { dim: [{ dimValue: 1 }, { dimValue: 3 }, { dimValue: 8 }, { dimValue: 8 }] },
          },
        },
      },
    ],
    output: [
      {
        name: "image_embeds",
        type: { tensorType: { elemType: T.FLOAT, shape: { dim: [{ dimValue: 1 }, { dimValue: TINY_DIM }] } } },
      },
    ],
  });
  writeFileSync(join(dir, "image.onnx"), model);
  const manifest = JSON.parse(readFileSync(join(dir, "homed-model.json"), "utf8"));
  manifest.image = {
    model: "image.onnx",
    size: 8,
    mean: [0, 0, 0],
    std: [1, 1, 1],
    input: "pixel_values",
    output: "image_embeds",
  };
  writeFileSync(join(dir, "homed-model.json"), JSON.stringify(manifest));
}

/** The text vector of one word: [CLS] word [SEP], as the tokenizer gives it. */
const wordVector = (w: string) => expectedVector([2, TINY_VOCAB.indexOf(w), 3]);
const HELLO = wordVector("hello");
const WORLD = wordVector("world");

/**
 * The tiny audio encoder's projection of [loudness, roughness] (mean |x[t]| and mean
 * |x[t] − x[t−1]|) into the text space: loudness·"hello" + roughness·("world" − "hello"). For a
 * sine of frequency f at rate r, roughness/loudness = 2·sin(πf/r): a low hum (≈ 0) lands on
 * "hello", a whistle at r/6 (ratio 1) exactly on "world".
 */
export const TINY_AUDIO_W = [...HELLO, ...WORLD.map((w, j) => w - (HELLO[j] as number))];
/** The tiny audio encoder's sample rate and window (seconds). */
export const TINY_AUDIO_RATE = 16000;
export const TINY_AUDIO_SECONDS = 2;
/** The tiny log-mel encoder's features: 8 mels, so its projection is 8×4. */
const TINY_MEL = { n_fft: 256, hop: 160, n_mels: 8, f_min: 50, f_max: 8000 };

const int64s = (name: string, values: number[]) => ({
  name,
  dataType: T.INT64,
  dims: [values.length],
  rawData: new Uint8Array(BigInt64Array.from(values.map(BigInt)).buffer),
});
const floats = (name: string, dims: number[], values: number[]) => ({
  name,
  dataType: T.FLOAT,
  dims,
  rawData: new Uint8Array(new Float32Array(values).buffer),
});
const meanOver = (input: string, output: string, axes: number[], keepdims: 0 | 1) => ({
  opType: "ReduceMean",
  input: [input],
  output: [output],
  attribute: [
    { name: "axes", type: A.INTS, ints: axes },
    { name: "keepdims", type: A.INT, i: keepdims },
  ],
});
const floatTensor = (name: string, dim: onnx.TensorShapeProto.IDimension[]) => ({
  name,
  type: { tensorType: { elemType: T.FLOAT, shape: { dim } } },
});

/** waveform input_values [1, n] → [loudness, roughness] → TINY_AUDIO_W → audio_embeds [1, 4]. */
function waveformEncoder(): Uint8Array {
  return encodeModel({
    name: "tiny-audio",
    node: [
      { opType: "Abs", input: ["input_values"], output: ["ax"] },
      meanOver("ax", "loud", [1], 1),
      { opType: "Slice", input: ["input_values", "one", "end", "axis1"], output: ["late"] },
      { opType: "Slice", input: ["input_values", "zero", "minus1", "axis1"], output: ["early"] },
      { opType: "Sub", input: ["late", "early"], output: ["d"] },
      { opType: "Abs", input: ["d"], output: ["ad"] },
      meanOver("ad", "rough", [1], 1),
      { opType: "Concat", input: ["loud", "rough"], output: ["f"], attribute: [{ name: "axis", type: A.INT, i: 1 }] },
      { opType: "MatMul", input: ["f", "w"], output: ["audio_embeds"] },
    ],
    initializer: [
      int64s("zero", [0]),
      int64s("one", [1]),
      int64s("minus1", [-1]),
      int64s("end", [2 ** 53 - 1]),
      int64s("axis1", [1]),
      floats("w", [2, TINY_DIM], TINY_AUDIO_W),
    ],
    input: [floatTensor("input_values", [{ dimValue: 1 }, { dimParam: "n" }])],
    output: [floatTensor("audio_embeds", [{ dimValue: 1 }, { dimValue: TINY_DIM }])],
  });
}

/**
 * log-mel input_features [1, 1, frames, 8] → mean over frames → 8 mels → audio_embeds [1, 4]:
 * the upper four mels push towards "world" − "hello", the lower four away from it, so a whistle
 * and a hum land on opposite sides.
 */
function logMelEncoder(): Uint8Array {
  const d = WORLD.map((w, j) => w - (HELLO[j] as number));
  const w = Array.from({ length: TINY_MEL.n_mels }, (_, m) => d.map((x) => (m < 4 ? -x : x))).flat();
  return encodeModel({
    name: "tiny-audio-mel",
    node: [
      meanOver("input_features", "mels", [1, 2], 0),
      { opType: "MatMul", input: ["mels", "w"], output: ["audio_embeds"] },
    ],
    initializer: [floats("w", [TINY_MEL.n_mels, TINY_DIM], w)],
    input: [
      floatTensor("input_features", [
        { dimValue: 1 },
        { dimValue: 1 },
        { dimParam: "frames" },
        { dimValue: TINY_MEL.n_mels },
      ]),
    ],
    output: [floatTensor("audio_embeds", [{ dimValue: 1 }, { dimValue: TINY_DIM }])],
  });
}

/**
 * A tiny CLAP-style pair: the text model above plus an audio encoder in the same 4-dimensional
 * space, taking mono audio at 16 kHz, 2 s at a time, as the waveform (default) or as log-mel
 * features.
 */
export function writeTinyClap(dir: string, form: "waveform" | "log-mel" = "waveform", id = "tiny-clap@1"): void {
  writeTinyModel(dir, id);
  writeFileSync(join(dir, "audio.onnx"), form === "waveform" ? waveformEncoder() : logMelEncoder());
  const manifest = JSON.parse(readFileSync(join(dir, "homed-model.json"), "utf8"));
  manifest.audio = {
    model: "audio.onnx",
    sample_rate: TINY_AUDIO_RATE,
    max_seconds: TINY_AUDIO_SECONDS,
    form,
    ...(form === "log-mel" ? TINY_MEL : {}),
    output: "audio_embeds",
  };
  writeFileSync(join(dir, "homed-model.json"), JSON.stringify(manifest));
}

/** A mono 16-bit PCM WAV of a sine (amplitude 0.5) at `freq` Hz. */
export function sineWav(freq: number, seconds: number, rate = 48000, channels = 1): Uint8Array {
  const n = Math.round(seconds * rate);
  const out = new Uint8Array(44 + n * 2 * channels);
  const dv = new DataView(out.buffer);
  const ascii = (at: number, s: string) => {
    for (let i = 0; i < s.length; i++) out[at + i] = s.charCodeAt(i);
  };
  ascii(0, "RIFF");
  dv.setUint32(4, 36 + n * 2 * channels, true);
  ascii(8, "WAVEfmt ");
  dv.setUint32(16, 16, true);
  dv.setUint16(20, 1, true);
  dv.setUint16(22, channels, true);
  dv.setUint32(24, rate, true);
  dv.setUint32(28, rate * 2 * channels, true);
  dv.setUint16(32, 2 * channels, true);
  dv.setUint16(34, 16, true);
  ascii(36, "data");
  dv.setUint32(40, n * 2 * channels, true);
  for (let i = 0; i < n; i++) {
    const s = Math.round(0.5 * Math.sin((2 * Math.PI * freq * i) / rate) * 32767);
    for (let c = 0; c < channels; c++) dv.setInt16(44 + (i * channels + c) * 2, s, true);
  }
  return out;
}
