/** SHA256SUMS over the artefacts, with bare file names so `sha256sum -c` works in the folder. */
import { readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";

export function writeSums(outDir: string, artefacts: string[]): string {
  const lines = [...artefacts]
    .sort((a, b) => basename(a).localeCompare(basename(b)))
    .map((path) => `${new Bun.CryptoHasher("sha256").update(readFileSync(path)).digest("hex")}  ${basename(path)}`);
  const out = join(outDir, "SHA256SUMS");
  writeFileSync(out, `${lines.join("\n")}\n`);
  return out;
}
