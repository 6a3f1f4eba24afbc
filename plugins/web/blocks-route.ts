/**
 * GET /api/blocks/<sha256>: a stored block (a tool result's image, a person's attachment) for
 * the web UI, behind the same login as the rest of /api. The type is sniffed from the bytes,
 * never taken from what a plugin or an uploader claimed, and `nosniff` keeps the browser from
 * second-guessing it. Images, audio and video are served inline (thumbnails, the <audio>
 * player); anything else — a PDF, a Word file, HTML, text, unknown bytes — only as a download
 * (`?name=` its file name), never rendered in the page's origin. Blocks never change (the name
 * is the hash), so the browser may keep them.
 */
import * as v from "valibot";
import { join } from "node:path";
import { kindOfMime, sniffAttachmentMime } from "../../src/protocol/attachments.ts";
import { BlockHash, blockRelPath } from "../../src/protocol/images.ts";
import { cleanName } from "./uploads.ts";

export async function blockResponse(dataDir: string, sha256: string, name?: string): Promise<Response> {
  const json = (status: number, error: string) =>
    new Response(JSON.stringify({ error }), { status, headers: { "content-type": "application/json" } });
  if (!v.is(BlockHash, sha256)) return json(400, "a block is named by its sha256: 64 lower-case hex digits");
  const file = Bun.file(join(dataDir, blockRelPath(sha256)));
  if (!(await file.exists())) return json(404, `no block ${sha256}`);
  const bytes = new Uint8Array(await file.arrayBuffer());
  const mime = sniffAttachmentMime(bytes, name);
  const inline = mime !== null && kindOfMime(mime) !== "file";
  // A download's name may not carry quotes or non-ASCII into the header.
  const filename = cleanName(name, sha256).replace(/[^\x20-\x7e]|["\\]/g, "_");
  return new Response(bytes, {
    headers: {
      "content-type": inline ? mime : mime === "application/pdf" ? mime : "application/octet-stream",
      "x-content-type-options": "nosniff",
      "cache-control": "private, max-age=31536000, immutable",
      ...(inline ? {} : { "content-disposition": `attachment; filename="${filename}"` }),
    },
  });
}
