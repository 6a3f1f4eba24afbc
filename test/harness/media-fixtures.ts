/**
 * Media files the media tests and bench make themselves, so nothing is downloaded and every
 * expected word is known: a minimal PDF writer (Helvetica text, one content stream a page), a
 * ZIP writer for DOCX (and for zip bombs: an entry may claim a size it does not have), PNGs of
 * known text drawn by ffmpeg with a DejaVu font, and speech by espeak-ng.
 */
import { deflateRawSync } from "node:zlib";

/** A PDF whose page i shows the lines of pages[i] (ASCII). */
export function makePdf(pages: string[][]): Uint8Array {
  const objects: string[] = [];
  const add = (body: string) => {
    objects.push(body);
    return objects.length;
  };
  const catalog = add(""); // filled below: needs the pages object's number
  const pagesObj = add("");
  const font = add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  const kids: number[] = [];
  for (const lines of pages) {
    const esc = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`);
    const ops = lines.map((l, i) => `BT /F1 14 Tf 72 ${740 - i * 20} Td (${esc(l)}) Tj ET`).join("\n");
    const content = add(`<< /Length ${ops.length} >>\nstream\n${ops}\nendstream`);
    kids.push(
      add(
        `<< /Type /Page /Parent ${pagesObj} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${content} 0 R >>`,
      ),
    );
  }
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${pagesObj} 0 R >>`;
  objects[pagesObj - 1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(" ")}] /Count ${kids.length} >>`;
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) out += `${String(off).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

export interface ZipEntry {
  name: string;
  data: Uint8Array | string;
  /** The uncompressed size the directory claims (a lie, for bomb tests); default the real one. */
  claimSize?: number;
}

/** A ZIP with deflated entries (as Word writes them). */
export function makeZip(entries: ZipEntry[]): Uint8Array {
  const enc = new TextEncoder();
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const e of entries) {
    const raw = typeof e.data === "string" ? enc.encode(e.data) : e.data;
    const packed = deflateRawSync(raw);
    const name = enc.encode(e.name);
    const crc = Bun.hash.crc32(raw);
    const size = e.claimSize ?? raw.length;
    const local = new Uint8Array(30 + name.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(4, 20, true);
    lv.setUint16(8, 8, true);
    lv.setUint32(14, crc, true);
    lv.setUint32(18, packed.length, true);
    lv.setUint32(22, size, true);
    lv.setUint16(26, name.length, true);
    local.set(name, 30);
    const central = new Uint8Array(46 + name.length);
    const cv = new DataView(central.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint16(4, 20, true);
    cv.setUint16(6, 20, true);
    cv.setUint16(10, 8, true);
    cv.setUint32(16, crc, true);
    cv.setUint32(20, packed.length, true);
    cv.setUint32(24, size, true);
    cv.setUint16(28, name.length, true);
    cv.setUint32(42, offset, true);
    central.set(name, 46);
    locals.push(local, packed);
    centrals.push(central);
    offset += local.length + packed.length;
  }
  const cdSize = centrals.reduce((n, c) => n + c.length, 0);
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, entries.length, true);
  ev.setUint16(10, entries.length, true);
  ev.setUint32(12, cdSize, true);
  ev.setUint32(16, offset, true);
  return Buffer.concat([...locals, ...centrals, end]);
}

const xmlEscape = (s: string) => s.replace(/[<>&]/g, (c) => (c === "<" ? "&lt;" : c === ">" ? "&gt;" : "&amp;"));

/** A DOCX: each paragraph with an optional style (Title, Heading1…). */
export function makeDocx(paragraphs: { text: string; style?: string }[]): Uint8Array {
  const body = paragraphs
    .map(
      (p) =>
        `<w:p>${p.style ? `<w:pPr><w:pStyle w:val="${p.style}"/></w:pPr>` : ""}<w:r><w:t xml:space="preserve">${xmlEscape(p.text)}</w:t></w:r></w:p>`,
    )
    .join("");
  return docxWithDocumentXml(
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`,
  );
}

export function docxWithDocumentXml(xml: string | Uint8Array, claimSize?: number): Uint8Array {
  return makeZip([
    {
      name: "[Content_Types].xml",
      data: `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
    },
    { name: "word/document.xml", data: xml, claimSize },
  ]);
}

const FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
/** A font with Chinese characters (Debian fonts-wqy-microhei, installed by scripts/ensure-test-tools.sh). */
export const CJK_FONT = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc";

/** A white PNG with `lines` in black DejaVu Sans, `size` px, drawn by ffmpeg (text as written: no % expansion). */
export async function textPng(lines: string[], path: string, width = 1100, size = 30, font = FONT): Promise<void> {
  const esc = (s: string) => s.replace(/[\\':,]/g, (c) => `\\${c}`);
  const filters = lines
    .map(
      (l, i) =>
        `drawtext=fontfile=${font}:text='${esc(l)}':expansion=none:fontsize=${size}:fontcolor=black:x=30:y=${size + i * Math.round(size * 1.8)}`,
    )
    .join(",");
  await ffmpeg("could not draw text", [
    "-f",
    "lavfi",
    "-i",
    `color=c=white:s=${width}x${2 * size + lines.length * Math.round(size * 1.8)}`,
    "-frames:v",
    "1",
    "-vf",
    filters,
    "-c:v",
    "png",
    "-f",
    "image2",
    path,
  ]);
}

/** Speak `text` with espeak-ng into a WAV file. */
export async function espeakWav(text: string, path: string, voice = "en-us+klatt"): Promise<void> {
  const p = Bun.spawn(["espeak-ng", "-v", voice, "-s", "150", "-w", path, text], { stderr: "pipe" });
  if ((await p.exited) !== 0) throw new Error(`espeak-ng failed: ${await new Response(p.stderr).text()}`);
}

/** A short MP4 (testsrc pattern, 2 s) with a sine tone or the given WAV as its audio track. */
export async function makeVideo(path: string, seconds = 2, audioWav?: string): Promise<void> {
  const audio = audioWav ? ["-i", audioWav] : ["-f", "lavfi", "-i", `sine=frequency=440:duration=${seconds}`];
  await ffmpeg("could not make a video", [
    "-f",
    "lavfi",
    "-i",
    `testsrc=duration=${seconds}:size=320x240:rate=10`,
    ...audio,
    "-shortest",
    "-c:v",
    "libx264",
    "-pix_fmt",
    "yuv420p",
    "-c:a",
    "aac",
    "-f",
    "mp4",
    path,
  ]);
}

/** Run ffmpeg (errors only, output overwritten); throws with its stderr when it fails. */
async function ffmpeg(what: string, args: string[]): Promise<void> {
  const p = Bun.spawn(["ffmpeg", "-loglevel", "error", "-y", ...args], { stderr: "pipe" });
  if ((await p.exited) !== 0) throw new Error(`ffmpeg ${what}: ${await new Response(p.stderr).text()}`);
}
