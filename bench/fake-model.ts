/**
 * The model every daemon benchmark talks to: a minimal OpenAI-compatible server in the bench
 * process that streams each reply as several SSE chunks. It times itself from request to last
 * byte, so a benchmark can subtract the model's own time from a round trip.
 */

export interface FakeModelOptions {
  /** Text chunks per reply (the reply is `chunks` words), then a finish chunk and usage. */
  chunks?: number;
  /** Pause between chunks; > 0 keeps each turn in flight for about chunks × this long. */
  chunkDelayMs?: number;
  /** The reply's text (one chunk), asked for each request with its body; default "ok" (or `chunks` words). */
  reply?: (body: string) => string;
  /**
   * A tool call to answer this request with instead of text (asked with the request's body);
   * null: answer with text. The call streams as one chunk, then finish_reason "tool_calls".
   */
  toolCall?: (body: string) => { name: string; arguments: string } | null;
}

export interface FakeModel {
  /** Base URL for an OpenAI-compatible client (`…/v1`). */
  url: string;
  /** Requests answered so far. */
  readonly requests: number;
  /** The body of the latest request (what the daemon sent the model), "" before the first. */
  readonly lastBody: string;
  /** Milliseconds spent serving since the last `take()`. */
  spent(): number;
  /** Forget the time spent so far. */
  take(): void;
  stop(): void;
}

const sse = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`;

export function startFakeModel(opts: FakeModelOptions = {}): FakeModel {
  const chunks = opts.reply ? 1 : (opts.chunks ?? 1);
  const delay = opts.chunkDelayMs ?? 0;
  const encoder = new TextEncoder();
  let spentMs = 0;
  let requests = 0;
  let lastBody = "";
  const callFrames = (call: { name: string; arguments: string }): string[] => [
    sse({
      choices: [
        {
          index: 0,
          delta: {
            role: "assistant",
            tool_calls: [
              {
                index: 0,
                id: `call_${requests}`,
                type: "function",
                function: { name: call.name, arguments: call.arguments },
              },
            ],
          },
        },
      ],
    }),
    sse({ choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] }),
    sse({ choices: [], usage: { prompt_tokens: 10, completion_tokens: 1 } }),
    "data: [DONE]\n\n",
  ];
  const frames = (): string[] => {
    const out: string[] = [];
    for (let i = 0; i < chunks; i++) {
      const content = opts.reply ? opts.reply(lastBody) : chunks === 1 ? "ok" : `${i === 0 ? "" : " "}w${i}`;
      out.push(sse({ choices: [{ index: 0, delta: i === 0 ? { role: "assistant", content } : { content } }] }));
    }
    out.push(sse({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }));
    out.push(sse({ choices: [], usage: { prompt_tokens: 10, completion_tokens: chunks } }));
    out.push("data: [DONE]\n\n");
    return out;
  };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 60,
    async fetch(req) {
      const t0 = performance.now();
      requests++;
      lastBody = await req.text();
      const call = opts.toolCall?.(lastBody) ?? null;
      const parts = call ? callFrames(call) : frames();
      if (call || (chunks === 1 && delay === 0)) {
        const res = new Response(parts.join(""), { headers: { "content-type": "text/event-stream" } });
        spentMs += performance.now() - t0;
        return res;
      }
      // One enqueue per frame, with a turn of the event loop (or the configured pause) between
      // them, so the daemon reads a real stream rather than one buffered body.
      const body = new ReadableStream<Uint8Array>({
        async start(ctrl) {
          try {
            for (const p of parts) {
              ctrl.enqueue(encoder.encode(p));
              await (delay > 0 ? Bun.sleep(delay) : new Promise((r) => setImmediate(r)));
            }
            ctrl.close();
          } catch {
            // The client went away mid-reply (a cancelled turn, a killed daemon).
          } finally {
            spentMs += performance.now() - t0;
          }
        },
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    get requests() {
      return requests;
    },
    get lastBody() {
      return lastBody;
    },
    spent: () => spentMs,
    take: () => {
      spentMs = 0;
    },
    stop: () => server.stop(true),
  };
}
