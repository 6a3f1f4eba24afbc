/**
 * Attachments end to end through the compiled daemon and the web plugin's real HTTP API: a phone
 * photo with an EXIF rotation and a Markdown note are uploaded (POST /api/uploads, typed by their
 * bytes whatever the Content-Type said), sent with a message (/api/chat), reach the fake model as
 * an image part and as text, get block records, and are found by memory search through the text
 * a media.extract plugin read from them (test/fixtures/plugins/extract.ts). Bad uploads (empty,
 * unknown bytes, a corrupt JPEG, an image bomb, an oversized file) are 4xx answers that store
 * nothing; the daemon keeps serving.
 */
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { crc32, deflateSync } from "node:zlib";
import sharp from "sharp";
import { tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { webUrlOf } from "../harness/daemon.ts";
import { installBunPlugin } from "../harness/plugins.ts";
import { transcriptAt } from "../harness/transcript.ts";

const TOKEN = "tok-attach-test-0123456789abcdef";
const auth = { authorization: `Bearer ${TOKEN}` };
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

/** A 600×300 JPEG (left red, right blue) whose EXIF says "rotate 90° clockwise to show". */
export async function rotatedPhoto(width = 600, height = 300): Promise<Uint8Array> {
  const half = Math.floor(width / 2);
  const left = await sharp({ create: { width: half, height, channels: 3, background: "#d00000" } })
    .png()
    .toBuffer();
  const jpeg = await sharp({ create: { width, height, channels: 3, background: "#0000d0" } })
    .composite([{ input: left, left: 0, top: 0 }])
    .withMetadata({ orientation: 6 })
    .jpeg({ quality: 90 })
    .toBuffer();
  return new Uint8Array(jpeg);
}

async function upload(web: string, bytes: Uint8Array, name: string, type = "text/plain") {
  const r = await fetch(`${web}api/uploads?name=${encodeURIComponent(name)}`, {
    method: "POST",
    headers: { ...auth, "content-type": type },
    body: bytes,
  });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

async function chat(web: string, body: Record<string, unknown>): Promise<string> {
  const r = await fetch(`${web}api/chat`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(r.status).toBe(200);
  return await r.text();
}

/** A PNG whose header claims `w`×`h` RGB pixels, with a token of compressed data. */
export function pngBomb(w: number, h: number): Uint8Array {
  const chunk = (type: string, data: Uint8Array) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body) >>> 0, 8 + data.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const idat = deflateSync(Buffer.alloc(64 * 1024));
  const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return new Uint8Array(
    Buffer.concat([sig, chunk("IHDR", ihdr), chunk("IDAT", idat), chunk("IEND", new Uint8Array())]),
  );
}

function blockFiles(data: string): string[] {
  try {
    return readdirSync(join(data, "blocks"), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name);
  } catch {
    return [];
  }
}

describe("attachments", () => {
  test("a rotated photo and a note: uploaded, shaped, sent to the model, recorded as blocks, found by their text", async () => {
    using dir = tempDir();
    // The fixture writes what it was asked beside its manifest.
    const extractDir = join(dir.path, "plugins", "extract");
    installBunPlugin(dir.path, "extract", "extract.ts", { provides: ["media.extract"] }, [extractDir]);
    await using rig = await startAgentRig(dir.path, {
      env: { HOMED_WEB_TOKEN: TOKEN, HOMED_PLUGINS_DISABLED: "media" },
    });
    const web = await webUrlOf(rig.daemon);

    const photo = await rotatedPhoto();
    const up = await upload(web, photo, "IMG_0001.jpg", "application/pdf");
    expect(up.status).toBe(200);
    // Typed by its bytes (the Content-Type lied), turned upright: 300 wide, 600 high.
    expect(up.body).toMatchObject({ mime: "image/jpeg", kind: "image", name: "IMG_0001.jpg", width: 300, height: 600 });
    const stored = new Uint8Array(
      readFileSync(join(dir.path, "blocks", String(up.body.sha256).slice(0, 2), String(up.body.sha256))),
    );
    expect(sha(stored)).toBe(up.body.sha256 as string);
    const meta = await sharp(stored).metadata();
    expect([meta.width, meta.height, meta.orientation, meta.exif]).toEqual([300, 600, undefined, undefined]);
    // The red half (was left) is now on top.
    const top = await sharp(stored).extract({ left: 150, top: 50, width: 1, height: 1 }).raw().toBuffer();
    expect(top[0]).toBeGreaterThan(150);
    expect(top[2]).toBeLessThan(100);

    const note = new TextEncoder().encode("# Trip notes\n\nThe hotel code is zebra-quartz-9.\n");
    const doc = await upload(web, note, "notes.md");
    expect(doc.status).toBe(200);
    expect(doc.body).toMatchObject({ mime: "text/markdown", kind: "file", name: "notes.md" });

    rig.llm.script([{ text: "A red and blue picture and your notes." }]);
    const sse = await chat(web, {
      conv: "web-attach-1",
      text: "what are these?",
      attachments: [
        { sha256: up.body.sha256, name: "IMG_0001.jpg" },
        { sha256: doc.body.sha256, name: "notes.md" },
      ],
    });
    expect(sse).toContain("A red and blue picture and your notes.");

    // The model: one user message, the words and each attachment's text, then the image part.
    const messages = rig.llm.requests[0]?.body.messages as { role: string; content: unknown }[];
    const user = messages.at(-1) as {
      role: string;
      content: { type: string; text?: string; image_url?: { url: string } }[];
    };
    expect(user.role).toBe("user");
    const text = user.content[0]?.text ?? "";
    expect(text).toContain("what are these?");
    expect(text).toContain('[attached image "IMG_0001.jpg" (image/jpeg');
    expect(text).toContain("OCR says purple-elephant-42");
    expect(text).toContain('[attached document "notes.md" (text/markdown');
    expect(text).toContain("zebra-quartz-9");
    const url = user.content[1]?.image_url?.url ?? "";
    expect(url.startsWith("data:image/jpeg;base64,")).toBe(true);
    expect(sha(new Uint8Array(Buffer.from(url.slice(23), "base64")))).toBe(up.body.sha256 as string);

    // The media plugin was asked with the block's own path and the sniffed type.
    const asked = readFileSync(join(extractDir, "requests.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(asked.map((a) => a.mime).sort()).toEqual(["image/jpeg", "text/markdown"]);
    for (const a of asked) expect(a.path).toStartWith(join(dir.path, "blocks"));

    // Block records of the user message, with their text.
    const db = new Database(join(dir.path, "homed.db"), { readonly: true });
    const blocks = db
      .query<{ kind: string; mime: string; sha256: string; text: string }, []>(
        "SELECT b.kind, b.mime, b.sha256, b.text FROM blocks b JOIN events e ON e.id = b.event_id WHERE e.kind = 'user-message' ORDER BY b.seq",
      )
      .all();
    // The attachments' text is theirs, not the person's: the message carries the mark, so an
    // instruction in a document or a photo meets the same questions as one on a page.
    const said0 = db
      .query<{ untrusted: number; mark: string | null }, []>(
        "SELECT untrusted, mark FROM events WHERE conv = 'web-attach-1' AND kind = 'user-message' ORDER BY id LIMIT 1",
      )
      .get();
    db.close();
    expect(said0).toEqual({ untrusted: 0, mark: "the text of the attachment IMG_0001.jpg, notes.md" });
    expect(blocks.map((b) => [b.kind, b.mime])).toEqual([
      ["image", "image/jpeg"],
      ["file", "text/markdown"],
    ]);
    expect(blocks[1]?.text).toContain("zebra-quartz-9");

    // Memory finds the message by what the attachments say.
    for (const q of ["zebra-quartz-9", "purple-elephant-42"]) {
      const hits = (await (await fetch(`${web}api/memory/search?q=${q}`, { headers: auth })).json()) as {
        role: string;
        text: string;
        blocks: { kind: string }[];
      }[];
      const hit = hits.find((h) => h.role === "user");
      expect(hit?.text).toContain("what are these?");
      expect(hit?.blocks.map((b) => b.kind)).toEqual(["image", "file"]);
    }

    // The transcript the UI reloads names the attachments (not their text).
    const items = await transcriptAt(web, "web-attach-1", auth);
    const said = items.find((i) => i.type === "turn-start")?.event as
      | { attachments?: { name: string; kind: string; text?: string }[] }
      | undefined;
    expect(said?.attachments?.map((a) => [a.name, a.kind])).toEqual([
      ["IMG_0001.jpg", "image"],
      ["notes.md", "file"],
    ]);
    expect(said?.attachments?.[1]?.text).toBeUndefined();

    // The extractor failing loses nothing: the file is kept, the model told why there is no text.
    const broken = await upload(web, new TextEncoder().encode("unreadable today\n"), "broken-scan.txt");
    rig.llm.script([{ text: "I could not read it." }]);
    await chat(web, {
      conv: "web-attach-1",
      text: "and this?",
      attachments: [{ sha256: broken.body.sha256, name: "broken-scan.txt" }],
    });
    const last = (rig.llm.requests[1]?.body.messages as { role: string; content: string }[] | undefined)?.at(-1);
    expect(last?.content).toContain('[attached document "broken-scan.txt" (text/plain, 17 B)] (text not extracted: ');
    expect(last?.content).toContain("the extractor broke on purpose");

    // Served: the image inline, the document only as a download.
    const img = await fetch(`${web}api/blocks/${up.body.sha256}`, { headers: auth });
    expect(img.headers.get("content-type")).toBe("image/jpeg");
    const md = await fetch(`${web}api/blocks/${doc.body.sha256}?name=notes.md`, { headers: auth });
    expect(md.headers.get("content-disposition")).toBe('attachment; filename="notes.md"');
  });

  test("exactly 16 MiB is taken and can be read back; one byte more is a 413 that says the limit", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, {
      env: { HOMED_WEB_TOKEN: TOKEN, HOMED_PLUGINS_DISABLED: "media" },
    });
    const web = await webUrlOf(rig.daemon);
    const limit = 16 * 1024 * 1024;
    const full = new Uint8Array(limit).fill(66);
    const taken = await upload(web, full, "full.txt");
    expect({ status: taken.status, bytes: taken.body.bytes, sha256: taken.body.sha256 }).toEqual({
      status: 200,
      bytes: limit,
      sha256: sha(full),
    });
    const back = new Uint8Array(await (await fetch(`${web}api/blocks/${sha(full)}`, { headers: auth })).arrayBuffer());
    expect({ length: back.length, sha256: sha(back) }).toEqual({ length: limit, sha256: sha(full) });
    const over = await upload(web, new Uint8Array(limit + 1).fill(66), "over.txt");
    expect([over.status, over.body.error]).toEqual([
      413,
      "the file is 16777217 bytes; at most 16777216 bytes (16.0 MiB) are taken",
    ]);
  }, 60_000);

  test("bad uploads are clear 4xx answers, store nothing, and the daemon keeps serving", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, {
      env: { HOMED_WEB_TOKEN: TOKEN, HOMED_PLUGINS_DISABLED: "media" },
    });
    const web = await webUrlOf(rig.daemon);
    const before = blockFiles(dir.path).length;

    const empty = await upload(web, new Uint8Array(), "empty.jpg");
    expect([empty.status, empty.body.error]).toEqual([400, "the file is empty"]);

    const unknown = await upload(web, new Uint8Array([0, 1, 2, 3, 0xff, 0xfe, 0, 9, 8]), "a.png", "image/png");
    expect(unknown.status).toBe(415);
    expect(String(unknown.body.error)).toContain("none of the types homed takes");

    const good = await rotatedPhoto(64, 32);
    const corrupt = new Uint8Array([...good.subarray(0, 200), ...new Uint8Array(300).fill(7)]);
    const bad = await upload(web, corrupt, "broken.jpg");
    expect(bad.status).toBe(422);
    expect(String(bad.body.error)).toContain("the image cannot be");

    // A PNG that says it is 20000×20000: a few bytes that would decode to 1.2 GB.
    const boom = await upload(web, pngBomb(20000, 20000), "bomb.png");
    expect(boom.status).toBe(413);
    expect(String(boom.body.error)).toContain("20000×20000 pixels");

    const huge = await upload(web, new Uint8Array(17 * 1024 * 1024).fill(65), "big.txt");
    expect(huge.status).toBe(413);

    // Nothing stored by any of them; a chat naming a block that is not stored is refused.
    expect(blockFiles(dir.path).length).toBe(before);
    const r = await fetch(`${web}api/chat`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ conv: "web-attach-2", text: "hi", attachments: [{ sha256: "a".repeat(64) }] }),
    });
    expect(await r.text()).toContain("no stored block");
    expect((await fetch(`${web}healthz`)).status).toBe(200);
  });
});
