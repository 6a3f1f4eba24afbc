/**
 * Just enough of ZIP to read a DOCX, guarded against zip bombs: the central directory is read
 * first and the archive refused when it has too many entries, claims too much uncompressed data
 * in all, or an entry compresses better than any real document does (ratio). Inflating is capped
 * at the size the entry claims (node:zlib's maxOutputLength), so a directory that lies about
 * sizes cannot make it produce more. Stored (0) and deflated (8) entries only; no ZIP64.
 */
import { inflateRawSync } from "node:zlib";
import { MediaError } from "./media-error.ts";

export interface ZipLimits {
  maxEntries: number;
  maxTotalBytes: number;
  maxRatio: number;
}

/** A DOCX is a few dozen parts; its text part is rarely over a few MiB uncompressed. */
export const DOCX_ZIP_LIMITS: ZipLimits = { maxEntries: 2000, maxTotalBytes: 256 * 1048576, maxRatio: 200 };

interface Entry {
  name: string;
  method: number;
  compressed: number;
  size: number;
  localOffset: number;
}

export class ZipReader {
  private readonly entries = new Map<string, Entry>();
  private readonly view: DataView;

  constructor(
    private readonly bytes: Uint8Array,
    what: string,
    limits: ZipLimits = DOCX_ZIP_LIMITS,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const bad = (why: string) => new MediaError(`${what} is not a readable ZIP (DOCX) file: ${why}`);
    // End of central directory: 22 bytes plus a comment of up to 64 KiB, at the end.
    let eocd = -1;
    for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 65535); i--) {
      if (this.view.getUint32(i, true) === 0x06054b50) {
        eocd = i;
        break;
      }
    }
    if (eocd < 0) throw bad("no end-of-directory record");
    const count = this.view.getUint16(eocd + 10, true);
    const cdSize = this.view.getUint32(eocd + 12, true);
    const cdOffset = this.view.getUint32(eocd + 16, true);
    if (count === 0xffff || cdOffset === 0xffffffff) throw bad("ZIP64 archives are not read");
    if (count > limits.maxEntries)
      throw new MediaError(
        `${what} has ${count} entries (more than ${limits.maxEntries}); refused as a possible zip bomb`,
      );
    if (cdOffset + cdSize > bytes.length) throw bad("the directory lies past the end of the file");
    let at = cdOffset;
    let total = 0;
    for (let i = 0; i < count; i++) {
      if (at + 46 > bytes.length || this.view.getUint32(at, true) !== 0x02014b50) throw bad("a damaged directory");
      const method = this.view.getUint16(at + 10, true);
      const compressed = this.view.getUint32(at + 20, true);
      const size = this.view.getUint32(at + 24, true);
      const nameLen = this.view.getUint16(at + 28, true);
      const extraLen = this.view.getUint16(at + 30, true);
      const commentLen = this.view.getUint16(at + 32, true);
      const localOffset = this.view.getUint32(at + 42, true);
      const name = new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLen));
      total += size;
      if (total > limits.maxTotalBytes)
        throw new MediaError(
          `${what} unpacks to more than ${limits.maxTotalBytes / 1048576} MiB; refused as a possible zip bomb`,
        );
      if (size > 1024 * 1024 && size / Math.max(1, compressed) > limits.maxRatio)
        throw new MediaError(
          `${what}: ${name} would expand ${Math.round(size / Math.max(1, compressed))}-fold (over ${limits.maxRatio}); refused as a possible zip bomb`,
        );
      this.entries.set(name, { name, method, compressed, size, localOffset });
      at += 46 + nameLen + extraLen + commentLen;
    }
  }

  /** An entry's bytes, or undefined when the archive has no such entry. */
  read(name: string, what: string): Uint8Array | undefined {
    const e = this.entries.get(name);
    if (!e) return undefined;
    const bad = (why: string) => new MediaError(`${what}: ${name} cannot be read: ${why}`);
    if (e.localOffset + 30 > this.bytes.length || this.view.getUint32(e.localOffset, true) !== 0x04034b50)
      throw bad("a damaged entry header");
    const start =
      e.localOffset +
      30 +
      this.view.getUint16(e.localOffset + 26, true) +
      this.view.getUint16(e.localOffset + 28, true);
    if (start + e.compressed > this.bytes.length) throw bad("the entry runs past the end of the file");
    const data = this.bytes.subarray(start, start + e.compressed);
    if (e.method === 0) return data;
    if (e.method !== 8) throw bad(`compression method ${e.method} is not read (only stored and deflate)`);
    try {
      const out = inflateRawSync(data, { maxOutputLength: Math.max(1, e.size) });
      return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ERR_BUFFER_TOO_LARGE" || /too large|maxOutputLength/i.test((err as Error).message))
        throw new MediaError(`${what}: ${name} inflates past the size it claims; refused as a possible zip bomb`);
      throw bad((err as Error).message);
    }
  }
}
