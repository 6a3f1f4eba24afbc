/**
 * Attachments read by the real built-in media plugin (media/extract) through the compiled
 * daemon: a screenshot-like PNG with words on it is OCR'd by tesseract, a Markdown note read as
 * a document, a spoken WAV (espeak-ng) transcribed offline — all before the turn, so the model
 * reads them with the message, and memory finds the message by what the picture and the note say.
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { webUrlOf } from "../harness/daemon.ts";

const TOKEN = "tok-attach-media-0123456789abcdef";
const auth = { authorization: `Bearer ${TOKEN}` };

describe("attachments read by the media plugin", () => {
  test("OCR, a document and a transcript reach the model with the words; memory finds them", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { env: { HOMED_WEB_TOKEN: TOKEN } });
    const web = await webUrlOf(rig.daemon);
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="900" height="200"><rect width="100%" height="100%" fill="white"/><text x="20" y="120" font-size="64" font-family="DejaVu Sans" fill="black">INVOICE 4711 PAID</text></svg>`;
    const png = new Uint8Array(await sharp(Buffer.from(svg)).png().toBuffer());
    const wav = join(dir.path, "say.wav");
    expect(spawnSync("espeak-ng", ["-w", wav, "the quick brown fox jumps over the lazy dog"]).status).toBe(0);
    const up = async (b: Uint8Array, name: string) =>
      (await (await fetch(`${web}api/uploads?name=${name}`, { method: "POST", headers: auth, body: b })).json()) as {
        sha256: string;
      };
    const shot = await up(png, "shot.png");
    const voice = await up(new Uint8Array(readFileSync(wav)), "voice.wav");
    const plan = await up(new TextEncoder().encode("# Plan\n\n## Day one\n\nVisit the walrus museum.\n"), "plan.md");

    rig.llm.script([{ text: "Read them all." }]);
    const r = await fetch(`${web}api/chat`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({
        conv: "media-1",
        text: "read these",
        attachments: [
          { sha256: shot.sha256, name: "shot.png" },
          { sha256: voice.sha256, name: "voice.wav" },
          { sha256: plan.sha256, name: "plan.md" },
        ],
      }),
    });
    expect(await r.text()).toContain("Read them all.");
    const user = (rig.llm.requests[0]?.body.messages as { content: unknown }[] | undefined)?.at(-1) as {
      content: { type: string; text?: string }[];
    };
    const text = user.content[0]?.text ?? "";
    expect(text).toMatch(
      /\[attached image "shot\.png" \(image\/png, [^)]+\)\]\ntext read from it \(OCR\)[^\n]*:\nINVOICE 4711 PAID/,
    );
    expect(text).toContain('[attached document "plan.md" (text/markdown');
    expect(text).toContain("Visit the walrus museum.");
    // pocketsphinx's English model reads espeak's voice poorly: that a transcript was made (or
    // why not) is what is checked here, not its words.
    expect(text).toMatch(/\[attached audio "voice\.wav" \(audio\/wav, [^)]+\)\](\ntranscript[^\n]*:\n\S| \(.+\))/);

    for (const q of ["INVOICE", "walrus"]) {
      const hits = (await (await fetch(`${web}api/memory/search?q=${q}`, { headers: auth })).json()) as {
        role: string;
        text: string;
      }[];
      expect(hits.find((h) => h.role === "user")?.text).toContain("read these");
    }
  }, 120_000);
});
