/**
 * A QQ voice message (`record` segment) through the compiled daemon and the fake OneBot
 * implementation: its bytes are fetched, stored as an attachment block typed by its bytes (AMR
 * here, what QQ records in), and named in chat/send, so the model reads "[attached audio …]"
 * with the note or transcript the kernel got for it; the user message gets an audio block
 * record. Bytes that are no audio type homed takes are kept out, with a note in the text. A SILK
 * clip (what QQ really records in) is decoded to WAV by the plugin and transcribed by the media
 * plugin like any other voice message.
 */
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { FakeOneBot, startFakeOneBot } from "../harness/fake-onebot.ts";
import { poll } from "../harness/poll.ts";
import { startQqRig, waitConnected } from "../harness/qq-rig.ts";
import { encode } from "silk-wasm";

const TOKEN = "qq-voice-access-token";
const OWNER = 20002;
const { text } = FakeOneBot;

/** An AMR-NB file: the magic line and a few 12.2 kbit/s frames of silence. */
const AMR = new Uint8Array([
  ...Buffer.from("#!AMR\n", "latin1"),
  ...Array.from({ length: 10 }, () => [0x3c, ...new Array(31).fill(0)]).flat(),
]);

describe("qq voice messages", () => {
  test("a record segment becomes an audio attachment; unknown bytes a note", async () => {
    using dir = tempDir();
    using fake = await startFakeOneBot({ accessToken: TOKEN });
    await using rig = await startQqRig(dir.path, { mode: "ws", url: fake.wsUrl, access_token: TOKEN, owners: [OWNER] });
    await waitConnected(fake);

    const url = fake.serveMedia("v1.amr", AMR);
    rig.llm.script([{ text: "I got your voice message." }, { text: "That one I could not keep." }]);
    await fake.privateMessage(OWNER, [{ type: "record", data: { file: "v1.amr", url } }]);
    await poll(
      () => fake.sends().length,
      (n) => n >= 1,
      { what: "the answer to the voice message" },
    );
    const msgs = rig.llm.requests[0]?.body.messages as { role: string; content: string }[];
    const said = msgs.at(-1)?.content ?? "";
    expect(said).toContain("[voice message]");
    expect(said).toContain('[attached audio "v1.amr" (audio/amr, ');
    const sha = createHash("sha256").update(AMR).digest("hex");
    expect(existsSync(join(dir.path, "blocks", sha.slice(0, 2), sha))).toBe(true);
    const db = new Database(join(dir.path, "homed.db"), { readonly: true });
    const recs = db
      .query<{ kind: string; mime: string }, [string]>("SELECT kind, mime FROM blocks WHERE sha256 = ?")
      .all(sha);
    db.close();
    expect(recs).toEqual([{ kind: "audio", mime: "audio/amr" }]);

    // Bytes that are no audio homed takes: the words say so, nothing is stored.
    const junk = new Uint8Array([0x52, 0x49, 0x46, 0x46, 1, 2, 3, 4]);
    await fake.privateMessage(OWNER, [
      text("and "),
      { type: "record", data: { file: `base64://${Buffer.from(junk).toString("base64")}` } },
    ]);
    await poll(
      () => fake.sends().length,
      (n) => n >= 2,
      { what: "the answer to the second voice message" },
    );
    const second =
      (rig.llm.requests[1]?.body.messages as { role: string; content: string }[] | undefined)?.at(-1)?.content ?? "";
    expect(second).toContain("[voice message not stored: ");
    expect(second).not.toContain("[attached audio");
  }, 30_000);

  test("a SILK voice message (QQ's own format) is decoded to WAV and transcribed", async () => {
    using dir = tempDir();
    // Speech in SILK as QQ sends it: espeak-ng's words, resampled to 24 kHz, encoded by silk-wasm.
    const wav = join(dir.path, "said.wav");
    const pcm = join(dir.path, "said.pcm");
    expect(Bun.spawnSync(["espeak-ng", "-v", "en-us", "-s", "140", "-w", wav, "hello world"]).exitCode).toBe(0);
    expect(
      Bun.spawnSync(["ffmpeg", "-loglevel", "error", "-y", "-i", wav, "-ar", "24000", "-ac", "1", "-f", "s16le", pcm])
        .exitCode,
    ).toBe(0);
    const silk = (await encode(new Uint8Array(await Bun.file(pcm).arrayBuffer()), 24_000)).data;
    expect([...silk.subarray(0, 10)]).toEqual([0x02, ...Buffer.from("#!SILK_V3", "latin1")]);

    using fake = await startFakeOneBot({ accessToken: TOKEN });
    await using rig = await startQqRig(dir.path, { mode: "ws", url: fake.wsUrl, access_token: TOKEN, owners: [OWNER] });
    await waitConnected(fake);
    rig.llm.script([{ text: "Heard you." }]);
    await fake.privateMessage(OWNER, [
      { type: "record", data: { file: `base64://${Buffer.from(silk).toString("base64")}` } },
    ]);
    await poll(
      () => fake.sends().length,
      (n) => n >= 1,
      { what: "the answer to the SILK voice message", timeoutMs: 60_000 },
    );
    const said =
      (rig.llm.requests[0]?.body.messages as { role: string; content: string }[] | undefined)?.at(-1)?.content ?? "";
    expect(said).toContain('[attached audio "voice" (audio/wav, ');
    expect(said).not.toContain("not stored");
    // pocketsphinx hears espeak-ng's "hello world" through SILK (English only, offline).
    expect(said).toMatch(/transcript \(transcript by pocketsphinx[^\n]*\):\n.*(hello|world)/);
    const db = new Database(join(dir.path, "homed.db"), { readonly: true });
    const recs = db.query<{ kind: string; mime: string }, []>("SELECT kind, mime FROM blocks").all();
    db.close();
    expect(recs).toEqual([{ kind: "audio", mime: "audio/wav" }]);
  }, 90_000);
});
