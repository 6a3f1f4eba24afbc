/** The control socket survives whatever a client sends it. */
import { describe, expect, test } from "bun:test";
import { HOMED, run, tempDir } from "../harness/binary.ts";
import { startDaemon } from "../harness/daemon.ts";

async function rawExchange(socket: string, payload: Uint8Array | string, expectLines: number): Promise<string[]> {
  const got: string[] = [];
  let buf = "";
  let rest = typeof payload === "string" ? new TextEncoder().encode(payload) : payload;
  // Write what the socket takes now and the rest on drain: big payloads need backpressure.
  const pump = (s: { write(b: Uint8Array): number }) => {
    while (rest.length > 0) {
      const n = s.write(rest);
      rest = rest.subarray(Math.max(n, 0));
      if (n <= 0) return;
    }
  };
  return await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`only got ${JSON.stringify(got)}`)), 20_000);
    void Bun.connect({
      unix: socket,
      socket: {
        open: pump,
        drain: pump,
        data(s, d) {
          buf += new TextDecoder().decode(d);
          const parts = buf.split("\n");
          buf = parts.pop() ?? "";
          got.push(...parts);
          if (got.length >= expectLines) {
            clearTimeout(timer);
            s.end();
            resolve(got);
          }
        },
      },
    });
  });
}

describe("control socket", () => {
  test("garbage, bad frames, unknown methods and abrupt disconnects never stop the daemon", async () => {
    using dir = tempDir();
    await using d = await startDaemon(dir.path);
    const lines = await rawExchange(
      d.socket,
      'hello\n{"jsonrpc":"2.0","id":1,"method":"nope"}\n{"jsonrpc":"2.0","id":2,"method":"status","params":{"x":1}}\n{"id":3}\n',
      3,
    );
    const replies = lines.map((l) => JSON.parse(l));
    expect(replies[0].error.code).toBe(-32700);
    expect(replies.find((r) => r.id === 1).error.code).toBe(-32601);
    expect(replies.find((r) => r.id === 2).error.code).toBe(-32602);

    // A client that connects, writes half a frame and vanishes.
    const s = await Bun.connect({ unix: d.socket, socket: { data() {} } });
    s.write('{"jsonrpc":"2.0","id":9,"meth');
    s.end();
    // 8 MiB without a newline: dropped, not buffered.
    await rawExchange(d.socket, "y".repeat(8 << 20) + "\n", 1);

    const st = await run([HOMED, "status", "-data", dir.path]);
    expect(st.exitCode).toBe(0);
    expect(d.proc.exitCode).toBeNull();
  });
});
