/**
 * One turn stream, through the compiled daemon: a web turn's server-sent events carry their
 * number in the turn as the SSE id; a page that comes back names the last one it saw (`?from=`
 * or `Last-Event-ID`) and is sent only what came after; the owner at the control socket answers
 * the web turn's question with `chat.answer`, and the page is told it was answered there.
 */
import { describe, expect, test } from "bun:test";
import { tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { webUrlOf } from "../harness/daemon.ts";
import { poll } from "../harness/poll.ts";
import { connectUnixRpc } from "../../src/ipc/unix-rpc.ts";

interface SseEvent {
  id: number | null;
  data: Record<string, unknown>;
}

/** Read a response's server-sent events as they come, keeping each one's id. */
function readEvents(res: Response): { events: SseEvent[]; done: Promise<void> } {
  const events: SseEvent[] = [];
  const done = (async () => {
    const dec = new TextDecoder();
    let buf = "";
    for await (const chunk of res.body as ReadableStream<Uint8Array>) {
      buf += dec.decode(chunk, { stream: true });
      for (let i = buf.indexOf("\n\n"); i >= 0; i = buf.indexOf("\n\n")) {
        const lines = buf.slice(0, i).split("\n");
        buf = buf.slice(i + 2);
        const id = lines
          .find((l) => l.startsWith("id:"))
          ?.slice(3)
          .trim();
        const data = lines
          .filter((l) => l.startsWith("data:"))
          .map((l) => l.slice(5).trim())
          .join("\n");
        if (data) events.push({ id: id ? Number(id) : null, data: JSON.parse(data) });
      }
    }
  })();
  return { events, done };
}

describe("the turn stream", () => {
  test("events are numbered; a page comes back from where it was; the owner answers from the socket", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path);
    const url = await webUrlOf(rig.daemon);
    rig.llm.script([
      { text: "Let me look first.", toolCalls: [{ name: "danger_rm", arguments: { path: "/tmp/x" } }] },
      { text: "Removed, as the owner allowed." },
    ]);
    const started = await fetch(`${url}api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-homed": "1" },
      body: JSON.stringify({ conv: "streamed", text: "remove /tmp/x" }),
    });
    expect(started.status).toBe(200);
    const page = readEvents(started);
    const question = await poll(
      async () => page.events.find((e) => e.data.type === "approval"),
      (e) => e !== undefined,
      { timeoutMs: 15_000, intervalMs: 20, what: "the approval question" },
    );
    // The header has no number; the turn's events are numbered 1, 2, … with nothing skipped.
    expect(page.events[0]).toMatchObject({ id: null, data: { type: "stream", conv: "streamed" } });
    const ids = page.events.slice(1).map((e) => e.id);
    expect(ids).toEqual(ids.map((_, i) => i + 1));
    const asked = question?.id as number;

    // A page that saw everything before the question is sent the question and nothing earlier.
    const live = (q: string, headers: Record<string, string> = {}) =>
      fetch(`${url}api/chat/live?conv=streamed${q}`, { headers: { "x-homed": "1", ...headers } });
    const fromQuery = readEvents(await live(`&from=${asked - 1}`));
    const fromHeader = readEvents(await live("", { "last-event-id": String(asked - 1) }));
    const whole = readEvents(await live(""));
    for (const r of [fromQuery, fromHeader])
      await poll(
        async () => r.events.length,
        (n) => n >= 2,
        { timeoutMs: 10_000, intervalMs: 20, what: "the resumed page's events" },
      );
    for (const r of [fromQuery, fromHeader]) {
      expect(r.events[0]?.data.type).toBe("stream");
      expect(r.events[1]).toEqual(question as SseEvent);
    }
    await poll(
      async () => whole.events.some((e) => e.data.type === "approval"),
      (x) => x,
      { timeoutMs: 10_000, intervalMs: 20, what: "the whole replay" },
    );
    expect(whole.events[1]).toMatchObject({ id: 1, data: { type: "turn-start" } });

    // The owner answers from the control socket; nobody asks the socket anything.
    const requests: string[] = [];
    const owner = await connectUnixRpc(
      rig.daemon.socket,
      { warn: () => {}, debug: () => {} },
      {
        onRequest: (method) => {
          requests.push(method);
          return null;
        },
      },
    );
    const callId = question?.data.callId as string;
    expect(await owner.peer.request("chat.answer", { conv: "streamed", callId, approved: true })).toEqual({
      answered: true,
    });
    expect(await owner.peer.request("chat.answer", { conv: "streamed", callId, approved: false })).toEqual({
      answered: false,
    });
    owner.close();
    await Promise.all([page.done, fromQuery.done, fromHeader.done, whole.done]);
    // A page that saw the end and asks for the conversation's live turn is told there is none.
    expect((await live("")).status).toBe(204);
    for (const r of [page, fromQuery, fromHeader, whole]) {
      expect(r.events.map((e) => e.data)).toContainEqual({ type: "approval-answered", callId, approved: true });
      expect(r.events.at(-1)?.data).toMatchObject({ type: "done", result: { text: "Removed, as the owner allowed." } });
    }
    expect(requests).toEqual([]);
    expect(rig.seen().filter((x) => x.tool === "danger_rm")).toHaveLength(1);
  }, 60_000);
});
