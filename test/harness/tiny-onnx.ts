/**
 * A tiny ONNX text embedder made by the test itself (onnx-proto): token ids → Gather from a
 * fixed table → mean over tokens → one vector. Small enough to check its output by hand, real
 * enough to exercise loading, tokenizing, the runtime and the embedded library.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { onnx } from "onnx-proto";

export const TINY_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "hello", "world", "dog", "你", "好", "##s", "play", "##ing", ".", "!", "cat", "hound"];
export const TINY_DIM = 4;

/** The embedding table: row i is the vector of token i. */
export function tinyTable(): Float32Array {
  return new Float32Array(TINY_VOCAB.length * TINY_DIM).map((_, i) => Math.sin(i + 1));
}

/** What the model must return for these token ids: the normalised mean of their rows. */
export function expectedVector(ids: number[]): number[] {
  const t = tinyTable();
  const v = new Array<number>(TINY_DIM).fill(0);
  for (const id of ids) for (let j = 0; j < TINY_DIM; j++) v[j] = (v[j] as number) + (t[id * TINY_DIM + j] as number) / ids.length;
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
  const T = onnx.TensorProto.DataType;
  const A = onnx.AttributeProto.AttributeType;
  const seq = (name: string) => ({ name, type: { tensorType: { elemType: T.INT64, shape: { dim: [{ dimValue: 1 }, { dimParam: "n" }] } } } });
  const model = onnx.ModelProto.create({
    irVersion: 8,
    opsetImport: [{ domain: "", version: 13 }],
    producerName: "homed-test",
    graph: {
      name: "tiny-bert",
      node: [{ opType: "Gather", input: ["table", "input_ids"], output: ["last_hidden_state"], attribute: [{ name: "axis", type: A.INT, i: 0 }] }],
      initializer: [{ name: "table", dataType: T.FLOAT, dims: [TINY_VOCAB.length, TINY_DIM], rawData: new Uint8Array(table.buffer) }],
      input: [seq("input_ids"), seq("attention_mask"), seq("token_type_ids")],
      output: [{ name: "last_hidden_state", type: { tensorType: { elemType: T.FLOAT, shape: { dim: [{ dimValue: 1 }, { dimParam: "n" }, { dimValue: TINY_DIM }] } } } }],
    },
  });
  return onnx.ModelProto.encode(model).finish();
}

export function writeTinyModel(dir: string, id = "tiny@1"): void {
  mkdirSync(dir, { recursive: true });
  const table = tinyTable();
  const T = onnx.TensorProto.DataType;
  const A = onnx.AttributeProto.AttributeType;
  const model = onnx.ModelProto.create({
    irVersion: 8,
    opsetImport: [{ domain: "", version: 13 }],
    producerName: "homed-test",
    graph: {
      name: "tiny",
      node: [
        { opType: "Gather", input: ["table", "input_ids"], output: ["emb"], attribute: [{ name: "axis", type: A.INT, i: 0 }] },
        { opType: "ReduceMean", input: ["emb"], output: ["sentence_embedding"], attribute: [{ name: "axes", type: A.INTS, ints: [1] }, { name: "keepdims", type: A.INT, i: 0 }] },
      ],
      initializer: [{ name: "table", dataType: T.FLOAT, dims: [TINY_VOCAB.length, TINY_DIM], rawData: new Uint8Array(table.buffer) }],
      input: [{ name: "input_ids", type: { tensorType: { elemType: T.INT64, shape: { dim: [{ dimValue: 1 }, { dimParam: "n" }] } } } }],
      output: [{ name: "sentence_embedding", type: { tensorType: { elemType: T.FLOAT, shape: { dim: [{ dimValue: 1 }, { dimValue: TINY_DIM }] } } } }],
    },
  });
  writeFileSync(join(dir, "model.onnx"), onnx.ModelProto.encode(model).finish());
  writeFileSync(join(dir, "vocab.txt"), TINY_VOCAB.join("\n") + "\n");
  writeFileSync(
    join(dir, "homed-model.json"),
    JSON.stringify({ id, text: { model: "model.onnx", vocab: "vocab.txt", max_tokens: 32, inputs: { ids: "input_ids" }, output: "sentence_embedding", pooling: "none" } }),
  );
}
