/** JSON-RPC framing and peer behaviour, through RpcPeer's public API on an in-memory pipe. */
import { describe, expect, test } from "bun:test";
import { RpcPeer } from "../../src/ipc/rpc-peer.ts";
import { RpcErrorCode } from "../../src/protocol/jsonrpc.ts";
import { HomedError } from "../../src/protocol/errors.ts";

const enc = new TextEncoder();

function logSink() {
  const lines: string[] = [];
  return { lines, log: { warn: (m: string) => void lines.push(m), debug: () => {} } };
}

/** Two peers wired back to back; `a` can also be fed raw bytes by the test. */
function pair(opts: { handler?: (m: string, p: unknown) => unknown; timeoutMs?: number; maxFrameBytes?: number } = {}) {
  const la = logSink();
  const lb = logSink();
  const sentByA: string[] = [];
  const sentByB: string[] = [];
  let a!: RpcPeer;
  let b!: RpcPeer;
  a = new RpcPeer({
    send: (l) => {
      sentByA.push(l);
      b.feed(enc.encode(l));
    },
    log: la.log,
    timeoutMs: opts.timeoutMs,
    name: "a",
  });
  b = new RpcPeer({
    send: (l) => {
      sentByB.push(l);
      a.feed(enc.encode(l));
    },
    log: lb.log,
    onRequest: opts.handler ? (m, p) => opts.handler!(m, p) : undefined,
    maxFrameBytes: opts.maxFrameBytes,
    name: "b",
  });
  return { a, b, la, lb, sentByA, sentByB };
}

describe("RpcPeer", () => {
  test("requests get their results; ids are unique and increasing", async () => {
    const { a, sentByA } = pair({ handler: (m, p) => ({ m, p }) });
    const results = await Promise.all([a.request("x", 1), a.request("y"), a.request("z", { k: true })]);
    expect(results).toEqual([
      { m: "x", p: 1 },
      { m: "y", p: undefined },
      { m: "z", p: { k: true } },
    ]);
    const ids = sentByA.map((l) => JSON.parse(l).id);
    expect(new Set(ids).size).toBe(3);
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
  });

  test("handler errors become JSON-RPC errors: HomedError invalid_params → -32602", async () => {
    const { a } = pair({
      handler: (m) => {
        if (m === "bad") throw new HomedError("invalid_params", "conv: too short");
        throw new Error("boom");
      },
    });
    expect(await a.request("bad").catch((e) => [e.code, e.message])).toEqual([
      RpcErrorCode.InvalidParams,
      "conv: too short",
    ]);
    expect(await a.request("other").catch((e) => [e.code, e.message])).toEqual([RpcErrorCode.InternalError, "boom"]);
  });

  test("a peer without handlers answers MethodNotFound", async () => {
    const { a } = pair();
    expect(await a.request("nope").catch((e) => e.code)).toBe(RpcErrorCode.MethodNotFound);
  });

  test("a request times out, and its late reply is dropped with a log line", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { a, la } = pair({
      handler: async () => {
        await gate;
        return "late";
      },
      timeoutMs: 20,
    });
    const err = (await a.request("slow").catch((e) => e)) as { code: number };
    expect(err.code).toBe(RpcErrorCode.Timeout);
    release();
    await Bun.sleep(5);
    expect(a.stats.lateReplies).toBe(1);
    expect(la.lines).toContain("late rpc reply dropped");
  });

  test("garbage lines are answered with errors and counted, and the peer keeps working", async () => {
    const { a, b, sentByB } = pair({ handler: () => "ok" });
    const garbage = [
      "not json",
      "[1,2]",
      '{"jsonrpc":"1.0","id":1,"method":"x"}',
      '{"jsonrpc":"2.0","id":{},"method":"x"}',
      '{"jsonrpc":"2.0","id":7,"method":""}',
      "null",
      '"str"',
      "\u0000\u0001",
    ];
    for (const g of garbage) b.feed(enc.encode(`${g}\n`));
    expect(b.stats.badFrames).toBe(garbage.length);
    const replies = sentByB.map((l) => JSON.parse(l));
    expect(replies[0].error.code).toBe(RpcErrorCode.ParseError);
    expect(replies.find((r) => r.id === 7)?.error.code).toBe(RpcErrorCode.InvalidRequest);
    expect(await a.request("still")).toBe("ok");
  });

  test("frames split across chunks and several frames in one chunk are both decoded", async () => {
    const { b, sentByB } = pair({ handler: (_m, p) => p });
    const f1 = JSON.stringify({ jsonrpc: "2.0", id: "s1", method: "echo", params: "α".repeat(50) });
    const f2 = JSON.stringify({ jsonrpc: "2.0", id: "s2", method: "echo", params: 2 });
    const bytes = enc.encode(`${f1}\n${f2}\r\n`);
    for (let i = 0; i < bytes.length; i += 7) b.feed(bytes.subarray(i, i + 7));
    await Bun.sleep(1);
    expect(sentByB.map((l) => JSON.parse(l).result)).toEqual(["α".repeat(50), 2]);
  });

  test("an oversized line is dropped without buffering it whole; the next frame works", async () => {
    const { b, sentByB } = pair({ handler: () => "fine", maxFrameBytes: 1024 });
    const big = enc.encode("x".repeat(700));
    b.feed(big);
    b.feed(big); // over the limit mid-line: from here bytes are skipped, not stored
    b.feed(big);
    b.feed(enc.encode(`\n${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "m" })}\n`));
    await Bun.sleep(1);
    expect(b.stats.oversized).toBe(1);
    const replies = sentByB.map((l) => JSON.parse(l));
    expect(replies[0].error.code).toBe(RpcErrorCode.FrameTooLarge);
    expect(replies[1].result).toBe("fine");
  });

  test("close rejects everything pending with Disconnected and refuses new requests", async () => {
    const { a } = pair({ handler: () => new Promise(() => {}) });
    const p = a.request("hang");
    a.close("test over");
    expect(await p.catch((e) => [e.code, e.message])).toEqual([RpcErrorCode.Disconnected, "hang: test over"]);
    expect(await a.request("after").catch((e) => e.code)).toBe(RpcErrorCode.Disconnected);
  });
});
