/**
 * GET /api/blocks/<sha256>: a stored block (a tool result's image) for the web UI, behind the
 * same login as the rest of /api. The type is sniffed from the bytes, never taken from what a
 * plugin claimed, and `nosniff` keeps the browser from second-guessing it; a block that is no
 * image of ours is offered as a download, never rendered. Blocks never change (the name is the
 * hash), so the browser may keep them.
 */
import * as v from "valibot";
import { join } from "node:path";
import { BlockHash, blockRelPath, sniffImageMime } from "../../src/protocol/images.ts";

export async function blockResponse(dataDir: string, sha256: string): Promise<Response> {
  const json = (status: number, error: string) =>
    new Response(JSON.stringify({ error }), { status, headers: { "content-type": "application/json" } });
  if (!v.is(BlockHash, sha256)) return json(400, "a block is named by its sha256: 64 lower-case hex digits");
  const file = Bun.file(join(dataDir, blockRelPath(sha256)));
  if (!(await file.exists())) return json(404, `no block ${sha256}`);
  const bytes = new Uint8Array(await file.arrayBuffer());
  const mime = sniffImageMime(bytes);
  return new Response(bytes, {
    headers: {
      "content-type": mime ?? "application/octet-stream",
      "x-content-type-options": "nosniff",
      "cache-control": "private, max-age=31536000, immutable",
      ...(mime ? {} : { "content-disposition": `attachment; filename="${sha256}"` }),
    },
  });
}
