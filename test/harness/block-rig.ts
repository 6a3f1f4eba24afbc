/**
 * The kernel's side of blocks/get with real plugin processes: a Supervisor running
 * test/fixtures/plugins/block-reader.ts twice — over `shm` and over `stdio` — and answering
 * blocks/get with the kernel's own handler (src/kernel/methods/blocks.ts) over a real Store,
 * BlockRecords and BlockStore. Used by test/ipc/blocks-get.test.ts and bench/blocks.ts.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Supervisor } from "../../src/kernel/plugins/supervisor.ts";
import { externalSpecs } from "../../src/kernel/plugins/catalog.ts";
import { KERNEL_FACILITIES } from "../../src/kernel/plugins/graph.ts";
import { createLogger, createLogSink } from "../../src/kernel/log.ts";
import { realClock } from "../../src/kernel/clock.ts";
import { kernelBlocks, pluginBulk } from "../../src/kernel/plugins/bulk.ts";
import { blockMethods } from "../../src/kernel/methods/blocks.ts";
import { Store } from "../../src/store/store.ts";
import { BlockStore } from "../../src/store/blocks.ts";
import { BlockRecords } from "../../src/store/block-records.ts";
import { BUN } from "./binary.ts";
import { FIXTURES } from "./plugins.ts";

export interface BlockRig extends AsyncDisposable {
  /** Log a tool result carrying `bytes` as an image; returns its block's id. */
  addImage(bytes: Uint8Array, alt?: string): number;
  /** Ask plugin `name` (shm, stdio, outsider) to read block `id` through blocks/get. */
  read(
    name: string,
    id: number,
    bytes?: boolean,
  ): Promise<{
    block?: { id: number; sha256: string };
    len?: number;
    sha256?: string;
    via?: "arena" | "inline" | null;
    error?: string;
  }>;
  store: Store;
}

/** A PNG-signed payload of `size` bytes (the content does not matter to the transport). */
export function pngOf(size: number, fill = 7): Uint8Array {
  const b = new Uint8Array(size).fill(fill);
  b.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  for (let i = 8; i < size; i += 4093) b[i] = (i >> 12) & 0xff;
  return b;
}

export async function startBlockRig(data: string, inlineBulkLimit: number): Promise<BlockRig> {
  for (const [name, transport] of [
    ["shm", "shm"],
    ["stdio", "stdio"],
    ["outsider", "shm"],
  ] as const) {
    const dir = join(data, "plugins", name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "plugin.json"),
      JSON.stringify({
        name,
        transport,
        // blocks/get is a kernel.store method: an external plugin declares it to call it at all.
        requires: ["kernel.store"],
        exec: BUN,
        args: [join(FIXTURES, "block-reader.ts")],
      }),
    );
  }
  const store = Store.open(join(data, "homed.db"));
  const blocks = new BlockStore(data);
  const records = new BlockRecords(store.db);
  let sup: Supervisor | null = null;
  const bulk = pluginBulk((plugin) => sup?.process(plugin)?.link);
  const methods = blockMethods({
    blocks: kernelBlocks(bulk, blocks, store.blockRecords),
    // Every plugin here but `outsider` stands for a built-in one.
    plugins: { isBuiltin: (name) => name !== "outsider" },
  });
  sup = new Supervisor({
    specs: externalSpecs(join(data, "plugins")),
    kernelFacilities: KERNEL_FACILITIES,
    clock: realClock,
    log: createLogger(createLogSink("error")),
    hello: () => ({ kernelVersion: "test", dataDir: data, listen: "127.0.0.1:0", logLevel: "warn", inlineBulkLimit }),
    kernelMethods: methods,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root" },
    segmentBytes: 32 << 20,
    frameRate: 1_000_000,
    maxFrameBytes: Math.max(4 << 20, Math.ceil((inlineBulkLimit * 4) / 3) + 64 * 1024),
    inlineBulkLimit,
    startTimeoutMs: 30_000,
    pingIntervalMs: 0,
  });
  const s = sup;
  s.start();
  for (let i = 0; i < 3000 && !(s.list().length === 3 && s.list().every((p) => p.state === "ready")); i++)
    await Bun.sleep(5);
  if (!s.list().every((p) => p.state === "ready"))
    throw new Error(`block readers did not start: ${JSON.stringify(s.list())}`);
  let turn = 0;
  return {
    store,
    addImage(bytes, alt) {
      const sha256 = blocks.put(bytes);
      const t = `t${++turn}`;
      const e = store.append({
        conv: "blocks",
        kind: "tool-result",
        actor: "test",
        body: {
          turn: t,
          callId: t,
          name: "image_make",
          status: "ok",
          content: "made",
          images: [{ sha256, mime: "image/png", bytes: bytes.length, ...(alt ? { alt } : {}) }],
        },
      });
      const [b] = records.ofEvents([e.id]).get(e.id) ?? [];
      if (!b) throw new Error("no block record made");
      return b.id;
    },
    async read(name, id, bytes = true) {
      const p = s.process(name);
      if (!p) throw new Error(`${name} is not running`);
      return (await p.rpc.request("test/read-block", { id, bytes }, { timeoutMs: 60_000 })) as Awaited<
        ReturnType<BlockRig["read"]>
      >;
    },
    async [Symbol.asyncDispose]() {
      await s.stopAll();
      store.close();
    },
  };
}
