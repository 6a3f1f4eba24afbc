/**
 * Slow and greedy clients cannot hold the web listener: a body that does not arrive within
 * [web] request_timeout_s gets 408 and its connection closed, an idle keep-alive connection is
 * closed, one address holds at most 256 requests open (the next ones get 429 and are closed at
 * once), while a turn that takes longer than the deadline still gets its answer and /healthz
 * from another address answers fast. All on loopback, with a bounded number of sockets.
 */
import { describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { HOMED, tempDir } from "../harness/binary.ts";
import { startDaemon, webUrlOf } from "../harness/daemon.ts";
import { poll } from "../harness/poll.ts";
import { holdSlowBodies } from "../harness/slow-clients.ts";

/** Milliseconds /healthz takes to answer, from `url`. */
async function healthzMs(url: string): Promise<{ ms: number; status: number }> {
  const t0 = performance.now();
  const res = await fetch(`${url}healthz`, { signal: AbortSignal.timeout(10_000) });
  await res.arrayBuffer();
  return { ms: performance.now() - t0, status: res.status };
}

describe("slow clients", () => {
  test("one address holds at most 256 requests open; the rest get 429 and are closed; others are served", async () => {
    using dir = tempDir();
    await using d = await startDaemon(dir.path);
    const url = await webUrlOf(d);
    using slow = holdSlowBodies(url, { count: 300, from: ["127.0.0.2"], path: "/api/uploads?name=a.txt" });
    await slow.sent;
    await poll(
      () => slow.conns.filter((c) => c.status === 429 && c.closed).length,
      (n) => n === 44,
      { what: "44 requests over the cap refused and closed", timeoutMs: 10_000 },
    );
    const held = slow.conns.filter((c) => c.status === null && !c.closed).length;
    expect(held).toBe(256);
    expect(slow.conns.find((c) => c.status === 429)?.received).toContain("more than 256 requests at once");
    const health = await healthzMs(url);
    expect(health.status).toBe(200);
    expect(health.ms).toBeLessThan(1000);
  }, 30_000);

  test("many addresses each under the cap share one budget; a client holding none still gets in", async () => {
    using dir = tempDir();
    // A descriptor limit of 600 gives a budget of 300 requests in progress for all clients.
    await using d = await startDaemon(dir.path, {
      bin: ["bash", "-c", 'ulimit -n 600 && exec "$0" "$@"', HOMED],
    });
    const url = await webUrlOf(d);
    const from = ["127.0.0.2", "127.0.0.3"];
    using slow = holdSlowBodies(url, { count: 400, from, path: "/api/uploads?name=a.txt" });
    await slow.tried;
    // 200 from each address, under the per-client cap: past the budget of 300, each client gets
    // its fair share (150) and the rest are refused and closed.
    await poll(
      () => slow.conns.filter((c) => c.status === 429 && c.closed).length,
      (n) => n >= 90,
      { what: "requests past the budget refused", timeoutMs: 10_000 },
    );
    for (const a of from) {
      const held = slow.conns.filter((c) => c.from === a && c.status === null && !c.closed).length;
      expect(held).toBeGreaterThanOrEqual(140);
      expect(held).toBeLessThanOrEqual(160);
    }
    expect(slow.conns.find((c) => c.status === 429)?.received).toContain("busy with other clients");
    const health = await healthzMs(url);
    expect(health.status).toBe(200);
    expect(health.ms).toBeLessThan(1000);
  }, 30_000);

  test("a body nobody waits for (a refused request) does not hold its connection", async () => {
    using dir = tempDir();
    await using d = await startDaemon(dir.path, { loopbackLogin: true });
    const url = await webUrlOf(d);
    using slow = holdSlowBodies(url, { count: 20, from: ["127.0.0.2"], path: "/api/uploads?name=a.txt" });
    await slow.tried;
    await poll(
      () => slow.conns.filter((c) => c.status === 401 && c.closed).length,
      (n) => n === 20,
      { what: "unauthenticated slow bodies answered 401 and closed", timeoutMs: 5_000 },
    );
  }, 30_000);

  test("a late body gets 408 and is closed, an idle connection is closed, a long turn is still answered", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false, env: { HOMED_WEB_REQUEST_TIMEOUT_S: "2" } });
    const url = await webUrlOf(rig.daemon);
    // A turn whose model stalls well past the deadline, watched as the web UI does: the event
    // stream of POST /api/chat and, from another tab, GET /api/chat/live.
    rig.llm.script([
      { text: "worth the wait", stall: true },
      { text: "ok", stall: true },
    ]);
    const events = (res: Promise<Response>) =>
      res
        .then(async (r) => ({ status: r.status, text: await r.text() }))
        .catch((err: Error) => ({ status: 0, text: err.message }));
    const started = events(
      fetch(`${url}api/chat`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-homed": "1" },
        body: JSON.stringify({ conv: "slow-turn", text: "take your time" }),
      }),
    );
    await rig.llm.received(1);
    const watched = events(fetch(`${url}api/chat/live?conv=slow-turn`));
    // A call whose handler never reads its (small) body and waits on the model as long.
    const tested = events(
      fetch(`${url}api/provider/test`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-homed": "1" },
        body: "{}",
      }),
    );
    await rig.llm.received(2);

    using slow = holdSlowBodies(url, { count: 3, from: ["127.0.0.2", "127.0.0.3"], path: "/api/uploads?name=a.txt" });
    await slow.sent;
    await poll(
      () => slow.conns.filter((c) => c.status === 408 && c.closed).length,
      (n) => n === 3,
      { what: "the late bodies answered 408 and closed", timeoutMs: 15_000 },
    );
    expect(slow.conns[0]?.received).toContain("the request body did not arrive within 2 s");

    // A keep-alive connection left idle after its answer is closed by the server.
    const idle = await new Promise<{ status: number; closed: boolean }>((resolve, reject) => {
      const u = new URL(url);
      let text = "";
      const s = connect({ host: u.hostname, port: Number(u.port) }, () =>
        s.write(`GET /healthz HTTP/1.1\r\nHost: ${u.host}\r\n\r\n`),
      );
      s.on("data", (b: Buffer) => {
        text += b.toString();
      });
      s.on("error", reject);
      s.on("close", () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]), closed: true }));
      setTimeout(() => s.destroy(new Error("the idle connection was never closed")), 20_000).unref();
    });
    expect(idle).toEqual({ status: 200, closed: true });

    // Both deadlines have passed by now; neither event stream was cut.
    rig.llm.resume();
    for (const stream of [await started, await watched]) {
      expect(stream.status).toBe(200);
      expect(stream.text).toContain("worth the wait");
    }
    const test = await tested;
    expect(test.status).toBe(200);
    expect(test.text).toContain('"ok":true');
  }, 60_000);
});
