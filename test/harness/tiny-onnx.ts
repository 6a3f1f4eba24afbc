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
