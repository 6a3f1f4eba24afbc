/**
 * The ONNX embedder on a tiny model generated here: in process, and through the compiled binary
 * from / (onnxruntime's library embedded and loaded before its addon).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, writeFileSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { OnnxEmbedder } from "../../src/embed/onnx.ts";
import { WordPiece } from "../../src/embed/wordpiece.ts";
import { HOMED, run, tempDir } from "../harness/binary.ts";
import { expectedVector, tinyBertBytes, TINY_VOCAB, writeTinyClip, writeTinyModel } from "../harness/tiny-onnx.ts";

const ids = (...tokens: string[]) => tokens.map((t) => TINY_VOCAB.indexOf(t));

describe("WordPiece", () => {
  test("splits words, punctuation and CJK characters, then longest-match sub-words", () => {
    const wp = new WordPiece(TINY_VOCAB.join("\n"));
    expect(wp.encode("Hello, world!")).toEqual(ids("[CLS]", "hello", "[UNK]", "world", "!", "[SEP]"));
    expect(wp.encode("dogs playing")).toEqual(ids("[CLS]", "dog", "##s", "play", "##ing", "[SEP]"));
    expect(wp.encode("你好 zebra")).toEqual(ids("[CLS]", "你", "好", "[UNK]", "[SEP]"));
    expect(wp.encode("hello hello hello hello", 4)).toEqual(ids("[CLS]", "hello", "hello", "[SEP]"));
    expect(() => new WordPiece("a\nb")).toThrow("vocabulary lacks");
  });
});

describe("OnnxEmbedder", () => {
  test("loads a model directory and returns the model's normalised vectors", async () => {
    using dir = tempDir();
    writeTinyModel(join(dir.path, "tiny"));
    const e = await OnnxEmbedder.load(join(dir.path, "tiny"));
    expect(e.id).toBe("tiny@1");
    expect(e.dim).toBe(4);
    const [a, b] = await e.embedTexts(["hello world", "你好"]);
    const want = expectedVector(ids("[CLS]", "hello", "world", "[SEP]"));
    Array.from(a!).forEach((x, i) => {
      expect(x).toBeCloseTo(want[i] as number, 5);
    });
    const wantZh = expectedVector(ids("[CLS]", "你", "好", "[SEP]"));
    Array.from(b!).forEach((x, i) => {
      expect(x).toBeCloseTo(wantZh[i] as number, 5);
    });
  });

  test("a broken model directory is a clear error", async () => {
    using dir = tempDir();
    await expect(OnnxEmbedder.load(dir.path)).rejects.toThrow("has no homed-model.json");
    writeTinyModel(join(dir.path, "x"));
    writeFileSync(join(dir.path, "x", "model.onnx"), "not a model");
    await expect(OnnxEmbedder.load(join(dir.path, "x"))).rejects.toThrow("cannot load");
  });
});

describe("homed models", () => {
  test("the compiled binary lists and runs a model from /, with onnxruntime embedded", async () => {
    using dir = tempDir();
    let r = await run([HOMED, "models", "-data", dir.path, "list"], { cwd: "/" });
    expect(r.stdout).toContain("no models");
    writeTinyModel(join(dir.path, "models", "tiny"));
    mkdirSync(join(dir.path, "models", "broken"));
    writeFileSync(join(dir.path, "models", "broken", "homed-model.json"), "{}");
    r = await run([HOMED, "models", "-data", dir.path, "list"], { cwd: "/" });
    expect(r.stdout).toContain("tiny  tiny@1");
    expect(r.stdout).toContain("broken  broken:");
    r = await run([HOMED, "models", "-data", dir.path, "-json", "check", "tiny", "hello world"], { cwd: "/" });
    expect(r.exitCode).toBe(0);
    const out = JSON.parse(r.stdout) as { id: string; dim: number; vectors: number[][] };
    expect(out.dim).toBe(4);
    const want = expectedVector(ids("[CLS]", "hello", "world", "[SEP]"));
    out.vectors[0]!.forEach((x, i) => {
      expect(x).toBeCloseTo(want[i] as number, 5);
    });
    r = await run([HOMED, "models", "-data", dir.path, "check", "nope", "x"]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("has no homed-model.json");
    // A model file that is missing is a plain one-line error naming it, not a stack.
    writeTinyModel(join(dir.path, "models", "novocab"));
    rmSync(join(dir.path, "models", "novocab", "vocab.txt"));
    r = await run([HOMED, "models", "-data", dir.path, "check", "novocab", "x"]);
    expect([r.exitCode, r.stderr]).toEqual([
      1,
      `homed: ${join(dir.path, "models", "novocab", "vocab.txt")}: no such file\n`,
    ]);
  });
});

/** stderr without pull's progress lines: what the command says went wrong. */
const errorLines = (stderr: string) =>
  stderr
    .trim()
    .split("\n")
    .filter((l) => !/^(downloading | {2}\S+: [\d.]+ MiB$)/.test(l));

describe("homed models pull", () => {
  test("downloads a known model from the hub endpoint (a local mirror here), checks it loads, installs it", async () => {
    using dir = tempDir();
    const served: string[] = [];
    const mirror = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch(req) {
        const path = new URL(req.url).pathname;
        served.push(path);
        if (path === "/Xenova/bge-small-zh-v1.5/resolve/main/onnx/model.onnx") return new Response(tinyBertBytes());
        if (path === "/Xenova/bge-small-zh-v1.5/resolve/main/vocab.txt")
          return new Response(`${TINY_VOCAB.join("\n")}\n`);
        return new Response("not found", { status: 404 });
      },
    });
    try {
      const endpoint = `http://127.0.0.1:${mirror.port}`;
      let r = await run([HOMED, "models", "-data", dir.path, "-endpoint", endpoint, "pull", "bge-small-zh"], {
        cwd: "/",
      });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain("installed bge-small-zh (bge-small-zh-v1.5@1, 4 dimensions)");
      expect(served).toEqual([
        "/Xenova/bge-small-zh-v1.5/resolve/main/onnx/model.onnx",
        "/Xenova/bge-small-zh-v1.5/resolve/main/vocab.txt",
      ]);
      r = await run([HOMED, "models", "-data", dir.path, "-json", "check", "bge-small-zh", "hello"]);
      const cls = expectedVector(ids("[CLS]")); // CLS pooling: the [CLS] row, normalised
      (JSON.parse(r.stdout) as { vectors: number[][] }).vectors[0]!.forEach((x, i) => {
        expect(x).toBeCloseTo(cls[i] as number, 5);
      });
      // HF_ENDPOINT works like -endpoint; a model the mirror lacks fails cleanly and leaves nothing.
      r = await run([HOMED, "models", "-data", dir.path, "pull", "bge-small-en"], { env: { HF_ENDPOINT: endpoint } });
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain("HTTP 404");
      expect(errorLines(r.stderr)).toHaveLength(1);
      expect(existsSync(join(dir.path, "models", "bge-small-en"))).toBe(false);
      expect(existsSync(join(dir.path, "models", "bge-small-en.pulling"))).toBe(false);
    } finally {
      mirror.stop(true);
    }
    const offline = await run([
      HOMED,
      "models",
      "-data",
      dir.path,
      "-endpoint",
      "http://127.0.0.1:1",
      "pull",
      "bge-small-zh",
    ]);
    // A network failure is upstream's, not the caller's: EX_UNAVAILABLE, one line.
    expect(offline.exitCode).toBe(69);
    expect(offline.stderr).toContain("cannot reach http://127.0.0.1:1");
    expect(errorLines(offline.stderr)).toHaveLength(1);
    expect((await run([HOMED, "models", "-data", dir.path, "pull", "no-such-model"])).stderr).toContain(
      "unknown model no-such-model",
    );
  });
});

describe("CLIP-style image path", () => {
  test("images are decoded and resized by sharp and embedded into the text space, in process and from the binary", async () => {
    using dir = tempDir();
    const model = join(dir.path, "models", "clip");
    writeTinyClip(model);
    const e = await OnnxEmbedder.load(model);
    expect(e.hasImages).toBe(true);
    const { sharpModule } = await import("../../src/embed/image.ts");
    const sharp = sharpModule();
    const png = (r: number, g: number, b: number) =>
      sharp({ create: { width: 20, height: 12, channels: 3, background: { r, g, b } } })
        .png()
        .toBuffer();
    const [red, blue] = await e.embedImages([await png(255, 0, 0), await png(0, 0, 255)]);
    expect(Array.from(red!).map((x) => Number(x.toFixed(4)))).toEqual([1, 0, 0, 0]);
    expect(Array.from(blue!).map((x) => Number(x.toFixed(4)))).toEqual([
      0,
      0,
      Number(Math.SQRT1_2.toFixed(4)),
      Number(Math.SQRT1_2.toFixed(4)),
    ]);
    expect((await e.embedTexts(["hello"]))[0]!.length).toBe(red!.length); // one space
    await expect(e.embedImages([new TextEncoder().encode("not an image")])).rejects.toThrow(
      "not an image sharp can read",
    );

    const file = join(dir.path, "blue.jpg");
    await Bun.write(
      file,
      await sharp({ create: { width: 9, height: 30, channels: 3, background: { r: 0, g: 0, b: 255 } } })
        .jpeg({ quality: 100 })
        .toBuffer(),
    );
    const r = await run([HOMED, "models", "-data", dir.path, "-json", "check-image", "clip", file], { cwd: "/" });
    expect(r.stderr).toBe("");
    const v = (JSON.parse(r.stdout) as { vectors: number[][] }).vectors[0]!;
    expect(v[2]).toBeCloseTo(Math.SQRT1_2, 2);
    expect(v[0]).toBeCloseTo(0, 2);

    // A file that is not an image is named; the good one still prints; the exit says it failed.
    const bad = join(dir.path, "notes.txt");
    await Bun.write(bad, "not a picture");
    const mixed = await run([HOMED, "models", "-data", dir.path, "check-image", "clip", bad, file], { cwd: "/" });
    expect(mixed.exitCode).not.toBe(0);
    expect(mixed.stderr).toContain(`${bad}: not an image sharp can read`);
    expect(mixed.stderr).toContain("1 of 2 image files could not be embedded");
    expect(mixed.stdout).toContain(`${file}: [`);
    expect(mixed.stdout).not.toContain(bad);
  });
});
