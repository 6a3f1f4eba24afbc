/**
 * OCR with Debian's tesseract: the languages asked for (default [tools.media] ocr_languages,
 * eng+chi_sim) must have their traineddata installed — a missing one names its package
 * (tesseract-ocr-chi-sim). The input is sniffed first: only image bytes go to tesseract, so a
 * renamed PDF or a truncated file gets a clear answer instead of Leptonica's. A photo whose EXIF
 * says it is rotated (phones store pixels sideways and an orientation tag), and WebP or GIF,
 * which Leptonica may not read, are turned upright into a PNG by sharp first; tesseract itself
 * ignores EXIF and would read sideways lines.
 */
import { writeFileSync } from "node:fs";
import { sharpModule } from "../../src/ipc/sharp-module.ts";
import { MediaError } from "./media-error.ts";
import type { Scratch } from "./media-files.ts";
import { type RunOptions, runProgram } from "./programs.ts";

/** Image types tesseract (Leptonica) reads, from their first bytes. */
export function sniffOcrImage(b: Uint8Array): string | null {
  const at = (sig: number[], off = 0) => sig.every((x, i) => b[off + i] === x);
  if (at([0x89, 0x50, 0x4e, 0x47])) return "PNG";
  if (at([0xff, 0xd8, 0xff])) return "JPEG";
  if (at([0x47, 0x49, 0x46, 0x38])) return "GIF";
  if (at([0x52, 0x49, 0x46, 0x46]) && at([0x57, 0x45, 0x42, 0x50], 8)) return "WebP";
  if (at([0x49, 0x49, 0x2a, 0x00]) || at([0x4d, 0x4d, 0x00, 0x2a])) return "TIFF";
  if (at([0x42, 0x4d])) return "BMP";
  if (at([0x50]) && b[1] !== undefined && b[1] >= 0x31 && b[1] <= 0x36) return "PNM";
  return null;
}

const CJK = "\\u3000-\\u303f\\u3400-\\u4dbf\\u4e00-\\u9fff\\uf900-\\ufaff\\uff00-\\uffef";
const CJK_GAP = new RegExp(`(?<=[${CJK}]) +(?=[${CJK}])`, "g");

let installed: Promise<Set<string>> | undefined;

async function installedLanguages(opts: RunOptions): Promise<Set<string>> {
  installed ??= runProgram("tesseract", ["--list-langs"], opts).then(
    (r) =>
      new Set(
        `${r.stdout}\n${r.stderr}`
          .split("\n")
          .slice(1)
          .map((l) => l.trim())
          .filter(Boolean),
      ),
    (err) => {
      installed = undefined;
      throw err;
    },
  );
  return installed;
}

/** The text tesseract reads in the image at `file` (bytes already read for sniffing). */
export async function ocrImage(
  file: string,
  bytes: Uint8Array,
  what: string,
  languages: string,
  scratch: Scratch,
  opts: RunOptions,
): Promise<{ text: string; type: string; rotated: boolean }> {
  const type = sniffOcrImage(bytes);
  if (!type) throw new MediaError(`${what} is not an image tesseract reads (PNG, JPEG, GIF, WebP, TIFF, BMP, PNM)`);
  const upright = await uprightPng(bytes, type, what);
  if (upright) {
    file = scratch.path("upright.png");
    writeFileSync(file, upright);
  }
  const have = await installedLanguages(opts);
  const missing = languages.split("+").filter((l) => !have.has(l));
  if (missing.length > 0)
    throw new MediaError(
      `tesseract has no data for ${missing.join(", ")}: apt install ${missing.map((l) => `tesseract-ocr-${l.replace(/_/g, "-").toLowerCase()}`).join(" ")} (installed: ${[...have].join(", ") || "none"})`,
    );
  // One OpenMP thread: tesseract's threads fight each other and everything else on a busy
  // machine (measured in bench/media.ts: media.ocr_ms halved on a loaded 2-core box).
  const env = { OMP_THREAD_LIMIT: "1" };
  const r = await runProgram("tesseract", [file, "stdout", "-l", languages], { ...opts, env }).catch((err: Error) => {
    if (err instanceof MediaError && err.message.includes("longer than")) throw err;
    throw new MediaError(`${what} could not be read as a ${type} image (damaged?): ${err.message}`);
  });
  return {
    text: r.stdout
      .replace(/\f/g, "")
      // tesseract with eng+chi_sim spaces out Chinese characters ("会 议 改 到"); Chinese has no spaces.
      .replace(CJK_GAP, "")
      .replace(/\n{3,}/g, "\n\n")
      .trim(),
    type,
    rotated: upright !== null,
  };
}

/** Types and orientations tesseract should not get as they are: an upright PNG, else null. */
async function uprightPng(bytes: Uint8Array, type: string, what: string): Promise<Uint8Array | null> {
  if (type !== "JPEG" && type !== "WebP" && type !== "GIF" && type !== "TIFF") return null;
  try {
    const sharp = sharpModule();
    const meta = await sharp(bytes).metadata();
    if ((meta.orientation ?? 1) <= 1 && type !== "WebP" && type !== "GIF") return null;
    return new Uint8Array(await sharp(bytes, { pages: 1 }).rotate().png().toBuffer());
  } catch (err) {
    throw new MediaError(`${what} could not be read as a ${type} image (damaged?): ${(err as Error).message}`);
  }
}
