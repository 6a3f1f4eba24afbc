/**
 * Images in tool results, end to end: a plugin returns images (bulk over shm, base64 over
 * stdio); the kernel sniffs, limits and stores them as content-addressed blocks; the model gets
 * them in each provider's shape (Anthropic: image blocks in the tool_result; OpenAI: a user
 * message of image parts after the tool messages), only the newest three per request; `[llm]
 * images` auto falls back once when the provider refuses images and remembers it; the web UI
 * serves blocks behind its login.
 */
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { tempDir } from "../harness/binary.ts";
import { startAgentRig, type AgentRig } from "../harness/agent-daemon.ts";
import { webUrlOf } from "../harness/daemon.ts";
import { installBunPlugin } from "../harness/plugins.ts";
import { poll } from "../harness/poll.ts";
import { transcriptAt } from "../harness/transcript.ts";

const TOKEN = "tok-images-test-0123456789abcdef";
const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

async function rigWithImages(
  dir: string,
  opts: { kind?: "openai" | "anthropic"; transport?: "shm" | "stdio"; env?: Record<string, string> } = {},
): Promise<AgentRig> {
  installBunPlugin(dir, "image", "image.ts", { transport: opts.transport ?? "shm" });
  const rig = await startAgentRig(dir, { kind: opts.kind, env: { HOMED_WEB_TOKEN: TOKEN, ...opts.env } });
  await poll(rig.status, (st) => st.tools.some((t) => t.name === "image_make"), { what: "image_make registered" });
  return rig;
}

const call = (shots: Record<string, unknown>[], text?: string) => ({
  name: "image_make",
  arguments: { shots, ...(text ? { text } : {}) },
});

type Img = { sha256: string; mime: string; bytes: number };
function storedImages(data: string): { content: string; images?: Img[] }[] {
  const db = new Database(join(data, "homed.db"), { readonly: true });
  try {
    return db
      .query<{ body: string }, []>("SELECT body FROM events WHERE kind = 'tool-result' ORDER BY id")
      .all()
      .map((r) => JSON.parse(r.body));
  } finally {
    db.close();
  }
}

const b64bytes = (s: string) => new Uint8Array(Buffer.from(s, "base64"));
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

describe("tool-result images", () => {
  test("OpenAI: stored as a block, sent as a data: URL in a user message naming the call; served behind the login", async () => {
    using dir = tempDir();
    await using rig = await rigWithImages(dir.path);
    rig.llm.script([{ toolCalls: [{ ...call([{ w: 7, h: 5 }]), id: "call_img1" }] }, { text: "I see a blue box" }]);
    const r = await rig.chat("draw");
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("I see a blue box");
    expect(r.stderr).toContain("← image_make [ok] made 1 image(s) [+1 image, shown in the web UI]");

    const [result] = storedImages(rig.data);
    expect(result?.images).toHaveLength(1);
    const img = result?.images?.[0] as Img;
    expect(img.mime).toBe("image/png");
    const file = join(rig.data, "blocks", img.sha256.slice(0, 2), img.sha256);
    const bytes = new Uint8Array(readFileSync(file));
    expect(sha(bytes)).toBe(img.sha256);
    expect(bytes.length).toBe(img.bytes);
    const meta = await sharp(bytes).metadata();
    expect([meta.width, meta.height]).toEqual([7, 5]);

    const messages = rig.llm.requests[1]?.body.messages as Record<string, unknown>[];
    const toolAt = messages.findIndex((m) => m.role === "tool");
    expect(messages[toolAt]).toMatchObject({ role: "tool", tool_call_id: "call_img1", content: "made 1 image(s)" });
    const next = messages[toolAt + 1] as {
      role: string;
      content: { type: string; text?: string; image_url?: { url: string } }[];
    };
    expect(next.role).toBe("user");
    expect(next.content[0]?.text).toContain("call_img1");
    expect(next.content[0]?.text).toContain("image_make");
    const url = next.content[1]?.image_url?.url ?? "";
    expect(url.startsWith("data:image/png;base64,")).toBe(true);
    expect(sha(b64bytes(url.slice("data:image/png;base64,".length)))).toBe(img.sha256);

    const web = await webUrlOf(rig.daemon);
    const anon = await fetch(`${web}api/blocks/${img.sha256}`);
    expect(anon.status).toBe(401);
    const res = await fetch(`${web}api/blocks/${img.sha256}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(sha(new Uint8Array(await res.arrayBuffer()))).toBe(img.sha256);
    const bad = await fetch(`${web}api/blocks/..%2F..%2Fconfig.toml`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(bad.status).toBe(400);
    const missing = await fetch(`${web}api/blocks/${"0".repeat(64)}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(missing.status).toBe(404);

    // The transcript the web UI reloads carries the image for the tool card.
    const conv = (await (
      await fetch(`${web}api/conversations`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).json()) as { id: string }[];
    const items = await transcriptAt(web, conv[0]?.id ?? "", { authorization: `Bearer ${TOKEN}` });
    const stored = items.find((i) => i.type === "tool-result")?.event as { images?: Img[] } | undefined;
    expect(stored?.images?.[0]?.sha256).toBe(img.sha256);
  }, 60_000);

  test("Anthropic: image blocks inside the tool_result, after its text", async () => {
    using dir = tempDir();
    await using rig = await rigWithImages(dir.path, { kind: "anthropic" });
    rig.llm.script([{ toolCalls: [{ ...call([{ w: 3, h: 2 }], "a picture"), id: "toolu_1" }] }, { text: "ok" }]);
    expect((await rig.chat("draw")).exitCode).toBe(0);
    const img = storedImages(rig.data)[0]?.images?.[0] as Img;
    const messages = rig.llm.requests[1]?.body.messages as { role: string; content: unknown }[];
    const user = messages.at(-1) as { role: string; content: Record<string, unknown>[] };
    const result = user.content.find((b) => b.type === "tool_result") as {
      tool_use_id: string;
      content: { type: string; text?: string; source?: { type: string; media_type: string; data: string } }[];
    };
    expect(result.tool_use_id).toBe("toolu_1");
    expect(result.content[0]).toEqual({ type: "text", text: "a picture" });
    expect(result.content[1]?.type).toBe("image");
    expect(result.content[1]?.source?.media_type).toBe("image/png");
    const bytes = b64bytes(result.content[1]?.source?.data ?? "");
    expect([...bytes.slice(0, 8)]).toEqual(PNG_MAGIC);
    expect(sha(bytes)).toBe(img.sha256);
  }, 60_000);

  test("the type is sniffed, not trusted: a false claim is corrected, bytes that are no image are dropped with a note (stdio transport)", async () => {
    using dir = tempDir();
    await using rig = await rigWithImages(dir.path, { transport: "stdio" });
    rig.llm.script([
      {
        toolCalls: [
          call([
            { w: 2, h: 2, claim: "image/jpeg" },
            { w: 1, h: 1, junk: true },
          ]),
        ],
      },
      { text: "done" },
    ]);
    expect((await rig.chat("draw")).exitCode).toBe(0);
    const [result] = storedImages(rig.data);
    expect(result?.images?.map((i) => i.mime)).toEqual(["image/png"]);
    expect(result?.content).toContain("[image 1: claimed image/jpeg, but its bytes are image/png]");
    expect(result?.content).toContain("[image 2 dropped: its bytes are not a PNG, JPEG, WebP or GIF image]");
    const messages = rig.llm.requests[1]?.body.messages as { role: string; content: unknown }[];
    const parts = messages.at(-1)?.content as { type: string; image_url?: { url: string } }[];
    expect(parts.filter((p) => p.type === "image_url")).toHaveLength(1);
    expect(parts[1]?.image_url?.url.startsWith("data:image/png;base64,")).toBe(true);
  }, 60_000);

  test("only the newest three images go with a request; older ones are named as omitted", async () => {
    using dir = tempDir();
    await using rig = await rigWithImages(dir.path);
    rig.llm.script([
      {
        toolCalls: [
          call([
            { w: 1, h: 1 },
            { w: 2, h: 1 },
          ]),
        ],
      },
      {
        toolCalls: [
          call([
            { w: 3, h: 1 },
            { w: 4, h: 1 },
            { w: 5, h: 1 },
          ]),
        ],
      },
      { text: "five pictures" },
    ]);
    expect((await rig.chat("draw a lot")).exitCode).toBe(0);
    const stored = storedImages(rig.data).flatMap((r) => r.images ?? []);
    expect(stored).toHaveLength(5);
    const body = rig.llm.requests[2]?.body.messages as { role: string; content: unknown }[];
    const urls = body
      .filter((m) => m.role === "user" && Array.isArray(m.content))
      .flatMap((m) => m.content as { type: string; image_url?: { url: string } }[])
      .filter((p) => p.type === "image_url")
      .map((p) => sha(b64bytes((p.image_url?.url ?? "").replace(/^data:[^,]+,/, ""))));
    expect(urls).toEqual(stored.slice(2).map((i) => i.sha256));
    const firstTool = body.find((m) => m.role === "tool")?.content as string;
    for (const old of stored.slice(0, 2)) expect(firstTool).toContain(`[image: ${old.sha256.slice(0, 12)}… omitted]`);
  }, 60_000);

  test('images = "auto": a provider that refuses images gets the call again without them, and that model is remembered', async () => {
    using dir = tempDir();
    await using rig = await rigWithImages(dir.path);
    rig.llm.script([
      { toolCalls: [call([{ w: 2, h: 2 }])] },
      {
        status: 400,
        body: { error: { message: "Invalid content type. image_url is only supported by vision models." } },
      },
      { text: "no eyes here" },
    ]);
    const r = await rig.chat("draw");
    expect(r.stdout).toContain("no eyes here");
    const hasImage = (i: number) => (rig.llm.requests[i]?.raw ?? "").includes("image_url");
    expect(hasImage(1)).toBe(true);
    expect(hasImage(2)).toBe(false);
    expect(rig.llm.requests[2]?.raw).toContain("omitted]");

    rig.llm.script([{ toolCalls: [call([{ w: 3, h: 3 }])] }, { text: "still blind" }]);
    expect((await rig.chat("draw again")).stdout).toContain("still blind");
    expect(rig.llm.requests).toHaveLength(5);
    expect(hasImage(4)).toBe(false);
  }, 60_000);

  test("more than four images is the tool's error, said to the model, and nothing is stored", async () => {
    using dir = tempDir();
    await using rig = await rigWithImages(dir.path);
    const five = [1, 2, 3, 4, 5].map((w) => ({ w, h: 1 }));
    rig.llm.script([{ toolCalls: [call(five)] }, { text: "too many" }]);
    expect((await rig.chat("draw five")).exitCode).toBe(0);
    const [result] = storedImages(rig.data);
    expect(result?.content).toBe("error: at most 4 images per result (got 5)");
    expect(result?.images).toBeUndefined();
    expect(existsSync(join(rig.data, "blocks"))).toBe(false);
  }, 60_000);

  test('images = "off" never sends image bytes; the block is still stored', async () => {
    using dir = tempDir();
    await using rig = await rigWithImages(dir.path, { env: { HOMED_LLM_IMAGES: "off" } });
    rig.llm.script([{ toolCalls: [call([{ w: 2, h: 2 }])] }, { text: "ok" }]);
    expect((await rig.chat("draw")).exitCode).toBe(0);
    const img = storedImages(rig.data)[0]?.images?.[0] as Img;
    expect(existsSync(join(rig.data, "blocks", img.sha256.slice(0, 2), img.sha256))).toBe(true);
    expect(rig.llm.requests[1]?.raw).not.toContain("image_url");
    expect(rig.llm.requests[1]?.raw).toContain(`[image: ${img.sha256.slice(0, 12)}… omitted]`);
  }, 60_000);
});
