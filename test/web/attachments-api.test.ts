/**
 * Attachments beyond the web UI's happy path, through the compiled daemon: with no plugin
 * providing media.extract an attachment is kept with a clear note and the turn goes on
 * (Anthropic's wire: the person's image as an image block before the words); the /v1 API takes
 * image_url parts with data: URLs as attachments — and the images of a stateless client's
 * history again — and refuses URLs it would have to fetch.
 */
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { join } from "node:path";
import sharp from "sharp";
import { tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { webUrlOf } from "../harness/daemon.ts";

const TOKEN = "tok-attach-api-0123456789abcdef";
const auth = { authorization: `Bearer ${TOKEN}` };
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

/** A short WAV of silence (RIFF/WAVE header + PCM). */
function wav(samples = 8000): Uint8Array {
  const b = Buffer.alloc(44 + samples * 2);
  b.write("RIFF", 0, "latin1");
  b.writeUInt32LE(36 + samples * 2, 4);
  b.write("WAVEfmt ", 8, "latin1");
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(1, 22);
  b.writeUInt32LE(8000, 24);
  b.writeUInt32LE(16000, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write("data", 36, "latin1");
  b.writeUInt32LE(samples * 2, 40);
  return new Uint8Array(b);
}

const png = async (colour: string) =>
  new Uint8Array(
    await sharp({ create: { width: 40, height: 30, channels: 3, background: colour } })
      .png()
      .toBuffer(),
  );

describe("attachments: no extractor, Anthropic, /v1", () => {
  test("without media.extract: kept with a note, the image goes to Anthropic as an image block", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, {
      kind: "anthropic",
      env: { HOMED_WEB_TOKEN: TOKEN, HOMED_PLUGINS_DISABLED: "media" },
    });
    const web = await webUrlOf(rig.daemon);
    const put = async (bytes: Uint8Array, name: string) =>
      (await (
        await fetch(`${web}api/uploads?name=${name}`, { method: "POST", headers: auth, body: bytes })
      ).json()) as { sha256: string; mime: string; kind: string };
    const image = await put(await png("#00aa00"), "green.png");
    const voice = await put(wav(), "voice.wav");
    expect([image.kind, voice.kind, voice.mime]).toEqual(["image", "audio", "audio/wav"]);

    rig.llm.script([{ text: "Green, and a silent recording." }]);
    const r = await fetch(`${web}api/chat`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({
        conv: "web-attach-3",
        text: "",
        attachments: [{ sha256: image.sha256 }, { sha256: voice.sha256, name: "voice.wav" }],
      }),
    });
    expect(await r.text()).toContain("Green, and a silent recording.");

    const body = rig.llm.requests[0]?.body as { messages: { role: string; content: unknown }[] };
    const user = body.messages.at(-1) as {
      role: string;
      content: { type: string; text?: string; source?: Record<string, string> }[];
    };
    expect(user.content[0]?.type).toBe("image");
    expect(user.content[0]?.source?.media_type).toBe("image/png");
    expect(sha(new Uint8Array(Buffer.from(user.content[0]?.source?.data ?? "", "base64")))).toBe(image.sha256);
    const text = user.content[1]?.text ?? "";
    expect(text).toContain('[attached audio "voice.wav" (audio/wav');
    expect(text).toContain("text not extracted: no plugin provides media.extract");

    const db = new Database(join(dir.path, "homed.db"), { readonly: true });
    const ev = db.query<{ body: string }, []>("SELECT body FROM events WHERE kind = 'user-message'").get();
    const kinds = db.query<{ kind: string }, []>("SELECT kind FROM blocks ORDER BY id").all();
    db.close();
    const attached = JSON.parse(ev?.body ?? "{}").attachments as { note?: string; kind: string }[];
    expect(attached.map((a) => [a.kind, a.note])).toEqual([
      ["image", "text not extracted: no plugin provides media.extract"],
      ["audio", "text not extracted: no plugin provides media.extract"],
    ]);
    expect(kinds.map((k) => k.kind)).toEqual(["image", "audio"]);

    // A conversation that began with files alone is titled by them.
    const list = (await (await fetch(`${web}api/conversations`, { headers: auth })).json()) as {
      id: string;
      title: string;
    }[];
    expect(list.find((c) => c.id === "web-attach-3")?.title).toBe("image, voice.wav");

    // on_input sees the files with the words; a message of files alone is gated too.
    const gated = rig.seen().find((x) => x.stage === "on_input");
    expect(gated?.payload?.attachments).toEqual([
      expect.stringContaining("[attached image (image/png"),
      expect.stringContaining('[attached audio "voice.wav" (audio/wav'),
    ]);
    rig.behave({ on_input: { action: "block", reason: "no files today" } });
    const blocked = await fetch(`${web}api/chat`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ conv: "web-attach-3", text: "", attachments: [{ sha256: voice.sha256 }] }),
    });
    expect(await blocked.text()).toContain("Not processed: no files today");
    expect(rig.llm.requests).toHaveLength(1);
  });

  test("a model that refuses images gets the words and an omitted line instead, once", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, {
      env: { HOMED_WEB_TOKEN: TOKEN, HOMED_PLUGINS_DISABLED: "media" },
    });
    const web = await webUrlOf(rig.daemon);
    const up = (await (
      await fetch(`${web}api/uploads?name=blue.png`, { method: "POST", headers: auth, body: await png("#0000ff") })
    ).json()) as { sha256: string };
    rig.llm.script([
      {
        status: 400,
        body: { error: { message: "this model does not support image input", type: "invalid_request_error" } },
      },
      { text: "I cannot see images, but you sent one." },
    ]);
    const r = await fetch(`${web}api/chat`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({
        conv: "web-attach-4",
        text: "look",
        attachments: [{ sha256: up.sha256, name: "blue.png" }],
      }),
    });
    expect(await r.text()).toContain("I cannot see images, but you sent one.");
    const first = (rig.llm.requests[0]?.body.messages as { content: unknown }[] | undefined)?.at(-1)?.content;
    expect(Array.isArray(first)).toBe(true);
    const second = (rig.llm.requests[1]?.body.messages as { content: unknown }[] | undefined)?.at(-1)?.content;
    expect(second).toMatch(
      /^look\n\n\[attached image "blue\.png" \(image\/png, \d+ B\)\] \(text not extracted: no plugin provides media\.extract\)\n\[image: [0-9a-f]{12}… omitted\]$/,
    );
    expect(second).toContain(up.sha256.slice(0, 12));
  });

  test("/v1: image_url data: URLs become attachments, the history's images are sent again, URLs to fetch are refused", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, {
      env: { HOMED_WEB_TOKEN: TOKEN, HOMED_PLUGINS_DISABLED: "media" },
    });
    const web = await webUrlOf(rig.daemon);
    const red = await png("#ff0000");
    const url = `data:image/png;base64,${Buffer.from(red).toString("base64")}`;
    const completion = (messages: unknown[]) =>
      fetch(`${web}v1/chat/completions`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json", "x-homed-conversation": "vision" },
        body: JSON.stringify({ model: "homed", messages }),
      });
    const ask = [
      { type: "text", text: "what colour?" },
      { type: "image_url", image_url: { url } },
    ];

    rig.llm.script([{ text: "Red." }, { text: "Still red." }]);
    const first = await completion([{ role: "user", content: ask }]);
    expect(first.status).toBe(200);
    expect(((await first.json()) as { choices: { message: { content: string } }[] }).choices[0]?.message.content).toBe(
      "Red.",
    );
    const m1 = (rig.llm.requests[0]?.body.messages as { role: string; content: unknown }[] | undefined)?.at(-1) as {
      content: { type: string; text?: string; image_url?: { url: string } }[];
    };
    expect(m1.content[0]?.text).toContain("what colour?");
    expect(m1.content[0]?.text).toContain('[attached image "image-1" (image/png');
    expect(sha(new Uint8Array(Buffer.from((m1.content[1]?.image_url?.url ?? "").split(",")[1] ?? "", "base64")))).toBe(
      sha(red),
    );

    // The client sends the whole conversation again: the old image is a block named on its message.
    const second = await completion([
      { role: "user", content: ask },
      { role: "assistant", content: "Red." },
      { role: "user", content: "are you sure?" },
    ]);
    expect(second.status).toBe(200);
    const msgs = rig.llm.requests[1]?.body.messages as { role: string; content: unknown }[];
    const past = msgs.find((m) => m.role === "user" && Array.isArray(m.content)) as {
      content: { type: string; image_url?: { url: string } }[];
    };
    expect(
      past.content.some((p) => p.type === "image_url" && p.image_url?.url.startsWith("data:image/png;base64,")),
    ).toBe(true);

    const remote = await completion([
      { role: "user", content: [{ type: "image_url", image_url: { url: "http://127.0.0.1:1/cat.png" } }] },
    ]);
    expect(remote.status).toBe(400);
    expect(((await remote.json()) as { error: { message: string } }).error.message).toContain("must be a data: URL");
    const notImage = await completion([
      {
        role: "user",
        content: [
          {
            type: "image_url",
            image_url: { url: `data:image/png;base64,${Buffer.from("hello there").toString("base64")}` },
          },
        ],
      },
    ]);
    expect(notImage.status).toBe(400);
    expect(rig.llm.requests).toHaveLength(2);
  });
});
