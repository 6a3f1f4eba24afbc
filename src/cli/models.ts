/**
 * `homed models`: the dense embedding models installed under DATA/models/<name>/.
 *   homed models list           what is installed, and whether each loads
 *   homed models check NAME TEXT…  load NAME and embed each TEXT (dimension, norm, first values)
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { HomedError } from "../protocol/errors.ts";
import { dataPaths } from "../kernel/data-paths.ts";
import { MODEL_MANIFEST, OnnxTextEmbedder, readModelManifest } from "../embed/onnx.ts";

export async function runModels(dataDir: string, args: string[], json: boolean): Promise<number> {
  const dir = join(dataPaths(dataDir).dir, "models");
  const [verb, name, ...texts] = args;
  if (verb === "list" || verb === undefined) {
    const names = existsSync(dir) ? readdirSync(dir).filter((n) => statSync(join(dir, n)).isDirectory() && existsSync(join(dir, n, MODEL_MANIFEST))) : [];
    const rows = names.map((n) => {
      try {
        return { name: n, id: readModelManifest(join(dir, n)).id, ok: true, problem: "" };
      } catch (err) {
        return { name: n, id: "", ok: false, problem: (err as Error).message };
      }
    });
    if (json) process.stdout.write(JSON.stringify(rows) + "\n");
    else if (rows.length === 0) process.stdout.write(`no models in ${dir} (memory uses TF-IDF and BM25 without one)\n`);
    else for (const r of rows) process.stdout.write(r.ok ? `${r.name}  ${r.id}\n` : `${r.name}  broken: ${r.problem}\n`);
    return 0;
  }
  if (verb === "check") {
    if (!name || texts.length === 0) throw new HomedError("usage", "models check takes a model name and at least one text");
    const embedder = await OnnxTextEmbedder.load(join(dir, name));
    const vectors = await embedder.embedTexts(texts);
    if (json) process.stdout.write(JSON.stringify({ id: embedder.id, dim: embedder.dim, vectors: vectors.map((v) => Array.from(v)) }) + "\n");
    else {
      process.stdout.write(`${embedder.id}: ${embedder.dim} dimensions\n`);
      vectors.forEach((v, i) => process.stdout.write(`  ${JSON.stringify(texts[i])}: [${Array.from(v.subarray(0, 4)).map((x) => x.toFixed(4)).join(", ")}${v.length > 4 ? ", …" : ""}]\n`));
    }
    return 0;
  }
  throw new HomedError("usage", `models: unknown action "${verb}" (list, check)`);
}
