/**
 * `homed models`: the dense embedding models installed under DATA/models/<name>/.
 *   homed models list             what is installed, and whether each loads
 *   homed models check NAME TEXT…  load NAME and embed each TEXT (dimension, first values)
 *   homed models check-image NAME FILE…  the same for images (CLIP-style models)
 *   homed models check-audio NAME FILE…  the same for audio clips (CLAP-style models)
 *   homed models pull NAME        download a known model from the Hugging Face hub (or the
 *                                 mirror in HF_ENDPOINT / -endpoint) and check that it loads
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HomedError } from "../protocol/errors.ts";
import { refuseOtherOwner } from "../kernel/data-dir.ts";
import { dataPaths } from "../kernel/data-paths.ts";
import { MODEL_MANIFEST, OnnxEmbedder, readModelManifest } from "../embed/onnx.ts";

/** The first four numbers of each vector, labelled, as a person reads them. */
function printVectors(labels: readonly string[], vectors: readonly Float32Array[]): void {
  for (const [i, v] of vectors.entries()) {
    const head = Array.from(v.subarray(0, 4))
      .map((x) => x.toFixed(4))
      .join(", ");
    process.stdout.write(`  ${labels[i]}: [${head}${v.length > 4 ? ", …" : ""}]\n`);
  }
}

/** BAAI's bge-small v1.5 as Xenova exports it to ONNX: a BERT, CLS-pooled, in one language. */
function bgeSmall(lang: "zh" | "en"): {
  repo: string;
  files: Record<string, string>;
  manifest: Record<string, unknown>;
} {
  return {
    repo: `Xenova/bge-small-${lang}-v1.5`,
    files: { "model.onnx": "onnx/model.onnx", "vocab.txt": "vocab.txt" },
    manifest: {
      id: `bge-small-${lang}-v1.5@1`,
      text: {
        model: "model.onnx",
        vocab: "vocab.txt",
        max_tokens: 512,
        inputs: { ids: "input_ids", mask: "attention_mask", types: "token_type_ids" },
        output: "last_hidden_state",
        pooling: "cls",
      },
    },
  };
}

/** Models `pull` knows: BERT-style (WordPiece) ONNX exports, so our tokenizer fits them. */
export const KNOWN_MODELS: Record<string, ReturnType<typeof bgeSmall>> = {
  "bge-small-zh": bgeSmall("zh"),
  "bge-small-en": bgeSmall("en"),
};

async function download(url: string, to: string): Promise<number> {
  let res: Response;
  try {
    res = await fetch(url, { redirect: "follow" });
  } catch (err) {
    throw new HomedError(
      "upstream",
      `cannot reach ${new URL(url).origin}: ${(err as Error).message} (offline? set HF_ENDPOINT or -endpoint to a mirror)`,
      { url },
      { cause: err },
    );
  }
  if (!res.ok || !res.body)
    throw new HomedError(res.status === 404 ? "not_found" : "upstream", `${url}: HTTP ${res.status}`, {
      url,
      status: res.status,
    });
  const tmp = `${to}.part`;
  const sink = Bun.file(tmp).writer();
  let bytes = 0;
  for await (const chunk of res.body) {
    sink.write(chunk);
    bytes += chunk.length;
  }
  await sink.end();
  renameSync(tmp, to);
  return bytes;
}

async function pull(modelsDir: string, name: string, endpoint: string): Promise<void> {
  const known = KNOWN_MODELS[name];
  if (!known) throw new HomedError("usage", `unknown model ${name}; known: ${Object.keys(KNOWN_MODELS).join(", ")}`);
  const target = join(modelsDir, name);
  const staging = `${target}.pulling`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    for (const [local, remote] of Object.entries(known.files)) {
      const url = `${endpoint.replace(/\/+$/, "")}/${known.repo}/resolve/main/${remote}`;
      process.stderr.write(`downloading ${url}\n`);
      const bytes = await download(url, join(staging, local));
      process.stderr.write(`  ${local}: ${(bytes / 1024 / 1024).toFixed(1)} MiB\n`);
    }
    writeFileSync(join(staging, MODEL_MANIFEST), `${JSON.stringify(known.manifest, null, 2)}\n`);
    const e = await OnnxEmbedder.load(staging); // only a model that loads is installed
    rmSync(target, { recursive: true, force: true });
    renameSync(staging, target);
    process.stdout.write(
      `installed ${name} (${e.id}, ${e.dim} dimensions) in ${target}\nuse it for memory with [memory] model = "${name}" in config.toml\n`,
    );
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    throw err;
  }
}

export async function runModels(dataDir: string, args: string[], json: boolean, endpoint?: string): Promise<number> {
  const dir = join(dataPaths(dataDir).dir, "models");
  const [verb, name, ...texts] = args;
  if (verb === "list" || verb === undefined) {
    const names = existsSync(dir)
      ? readdirSync(dir).filter((n) => statSync(join(dir, n)).isDirectory() && existsSync(join(dir, n, MODEL_MANIFEST)))
      : [];
    const rows = names.map((n) => {
      try {
        return { name: n, id: readModelManifest(join(dir, n)).id, ok: true, problem: "" };
      } catch (err) {
        return { name: n, id: "", ok: false, problem: (err as Error).message };
      }
    });
    if (json) process.stdout.write(`${JSON.stringify(rows)}\n`);
    else if (rows.length === 0) process.stdout.write(`no models in ${dir} (memory uses TF-IDF and BM25 without one)\n`);
    else
      for (const r of rows) process.stdout.write(r.ok ? `${r.name}  ${r.id}\n` : `${r.name}  broken: ${r.problem}\n`);
    return 0;
  }
  if (verb === "check") {
    if (!name || texts.length === 0)
      throw new HomedError("usage", "models check takes a model name and at least one text");
    const embedder = await OnnxEmbedder.load(join(dir, name));
    const vectors = await embedder.embedTexts(texts);
    if (json)
      process.stdout.write(
        `${JSON.stringify({ id: embedder.id, dim: embedder.dim, vectors: vectors.map((v) => Array.from(v)) })}\n`,
      );
    else {
      process.stdout.write(`${embedder.id}: ${embedder.dim} dimensions\n`);
      printVectors(
        texts.map((t) => JSON.stringify(t)),
        vectors,
      );
    }
    return 0;
  }
  if (verb === "check-image" || verb === "check-audio") {
    const what = verb === "check-image" ? "image" : "audio";
    if (!name || texts.length === 0)
      throw new HomedError("usage", `models ${verb} takes a model name and at least one ${what} file`);
    const embedder = await OnnxEmbedder.load(join(dir, name));
    // File by file: one that cannot be read or embedded is named, and the others still print.
    const vectors: (Float32Array | null)[] = [];
    const failed: { file: string; err: HomedError }[] = [];
    for (const file of texts) {
      try {
        if (!existsSync(file)) throw new HomedError("not_found", `no such file: ${file}`);
        const bytes = [new Uint8Array(readFileSync(file))];
        const [v] = what === "image" ? await embedder.embedImages(bytes) : await embedder.embedAudio(bytes);
        vectors.push(v ?? null);
      } catch (err) {
        const e = err instanceof HomedError ? err : new HomedError("invalid_params", (err as Error).message);
        failed.push({ file, err: e });
        vectors.push(null);
        if (!json) process.stderr.write(`  ${file}: ${e.message}\n`);
      }
    }
    if (json) {
      const errors = Object.fromEntries(failed.map(({ file, err }) => [file, err.message]));
      const out = { id: embedder.id, dim: embedder.dim, vectors: vectors.map((v) => (v ? Array.from(v) : null)) };
      process.stdout.write(`${JSON.stringify(failed.length ? { ...out, errors } : out)}\n`);
    } else {
      const ok = texts.flatMap((f, i) => (vectors[i] ? [[f, vectors[i]] as const] : []));
      printVectors(
        ok.map(([f]) => f),
        ok.map(([, v]) => v),
      );
    }
    const first = failed[0];
    if (first)
      throw new HomedError(first.err.code, `${failed.length} of ${texts.length} ${what} files could not be embedded`);
    return 0;
  }
  if (verb === "pull") {
    if (!name || texts.length)
      throw new HomedError("usage", `models pull takes one model name: ${Object.keys(KNOWN_MODELS).join(", ")}`);
    refuseOtherOwner(dataPaths(dataDir).dir);
    await pull(dir, name, endpoint || process.env.HF_ENDPOINT || "https://huggingface.co");
    return 0;
  }
  throw new HomedError("usage", `models: unknown action "${verb}" (list, check, check-image, check-audio, pull)`);
}
