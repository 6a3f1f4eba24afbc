/** The control socket survives whatever a client sends it. */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
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
    await rawExchange(d.socket, `${"y".repeat(8 << 20)}\n`, 1);

    const st = await run([HOMED, "status", "-data", dir.path]);
    expect(st.exitCode).toBe(0);
    expect(d.proc.exitCode).toBeNull();
  });

  test("chat.cancel with bad params is refused; with nothing running it cancels nothing", async () => {
    using dir = tempDir();
    await using d = await startDaemon(dir.path);
    const lines = await rawExchange(
      d.socket,
      '{"jsonrpc":"2.0","id":1,"method":"chat.cancel","params":{"turn":"x"}}\n{"jsonrpc":"2.0","id":2,"method":"chat.cancel","params":{}}\n{"jsonrpc":"2.0","id":3,"method":"chat.cancel","params":[1]}\n',
      3,
    );
    const replies = lines.map((l) => JSON.parse(l));
    expect(replies.find((r) => r.id === 1).error.code).toBe(-32602);
    expect(replies.find((r) => r.id === 2).result).toEqual({ cancelled: 0 });
    expect(replies.find((r) => r.id === 3).error.code).toBe(-32602);
    expect((await run([HOMED, "status", "-data", dir.path])).exitCode).toBe(0);
  });

  test("a client that sends requests and never reads the replies is dropped at 8 MiB queued; the daemon serves others", async () => {
    using dir = tempDir();
    await using d = await startDaemon(dir.path);
    const peak = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${d.proc.pid}/status`, "utf8"))![1]) * 1024;
    /** Python, not Bun (a Bun socket always reads): writes status requests until the daemon hangs up. */
    const rudeClient = async (): Promise<string> => {
      const client = Bun.spawn(["python3", "-c", RUDE_CLIENT, d.socket, "50000"], {
        stdin: "pipe",
        stdout: "pipe",
        stderr: "inherit",
      });
      const out = client.stdout.getReader();
      let line = "";
      while (!line.endsWith("\n")) {
        const { value, done } = await out.read();
        if (done) break;
        line += new TextDecoder().decode(value);
      }
      client.stdin.end();
      await client.exited;
      return line;
    };
    // What the daemon loads after ready for the first turn (~12 MB of lexicon) is not the rude client's.
    await d.waitFor(/msg="first turn prepared"/);
    const before = peak();
    expect(await rudeClient()).toMatch(/^closed after \d+\n$/);
    const grew = peak() - before;
    // A second one is dropped just the same.
    expect(await rudeClient()).toMatch(/^closed after \d+\n$/);
    const warned = [
      ...d
        .stderr()
        .matchAll(
          /level=warn msg="control client is not reading its replies; closing it" component=control queued=(\d+)/g,
        ),
    ];
    expect(warned.length).toBe(2);
    for (const w of warned) expect(Number(w[1])).toBeLessThanOrEqual(8 << 20);
    // Unbounded, the 50,000 replies queued for one client took 136 MB; capped at 8 MiB, what is
    // left is the garbage of ~6,000 status replies the GC has not collected yet (measured ~54 MB).
    expect(grew).toBeLessThan(96 << 20);
    const st = await run([HOMED, "status", "-data", dir.path]);
    expect(st.exitCode).toBe(0);
    expect(d.proc.exitCode).toBeNull();
  });
});

/** A control-socket client that only writes `status` requests, never reads, and says when the daemon hung up. */
const RUDE_CLIENT = `
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.connect(sys.argv[1])
sent = 0
try:
    for i in range(int(sys.argv[2])):
        s.sendall(b'{"jsonrpc":"2.0","id":%d,"method":"status"}\\n' % i)
        sent += 1
    print("never closed: sent", sent, flush=True)
    sys.stdin.read()
except (BrokenPipeError, ConnectionResetError):
    print("closed after", sent, flush=True)
`;

describe("control socket: what a local client lists and allows (waiter)", () => {
  test("conversations.list, conversations.messages and approval.allow check their params and answer", async () => {
    using dir = tempDir();
    await using d = await startDaemon(dir.path);
    const frames = [
      { id: 1, method: "conversations.list", params: {} },
      { id: 2, method: "conversations.list", params: { all: true } },
      { id: 3, method: "conversations.messages", params: { conv: "none-yet" } },
      { id: 4, method: "conversations.messages", params: { conv: "" } },
      { id: 5, method: "approval.allow", params: { tool: "not a tool name" } },
      { id: 6, method: "approval.allow", params: { tool: "shell_exec" } },
    ];
    const lines = await rawExchange(
      d.socket,
      frames.map((f) => `${JSON.stringify({ jsonrpc: "2.0", ...f })}\n`).join(""),
      frames.length,
    );
    const byId = new Map(lines.map((l) => JSON.parse(l)).map((r) => [r.id, r]));
    expect(byId.get(1).result).toEqual([]);
    expect(byId.get(2).error.code).toBe(-32602);
    expect(byId.get(3).result).toEqual([]);
    expect(byId.get(4).error.code).toBe(-32602);
    expect(byId.get(5).error.code).toBe(-32602);
    expect(byId.get(6).result.settings.approval_allow).toContain("shell_exec");
    // "Always" is kept in DATA/settings.json, as the web UI's button keeps it.
    expect(JSON.parse(readFileSync(`${dir.path}/settings.json`, "utf8")).approval_allow).toContain("shell_exec");
  });
});
