/**
 * The media plugin of the compiled binary (`homed plugin media`) with the test playing the kernel
 * over its stdin/stdout (stdio transport): hello, config/get "tools" (the settings the test
 * gives), tool registration and readiness are answered; then the test runs tools (`tool/run`)
 * and `media/extract` exactly as the kernel sends them, and sees the plugin's answers as they are
 * (images inline as base64). The plugin's stderr is kept for the test to look at. Any other
 * built-in plugin that reads only "tools" settings (the files plugin) runs the same way.
 */
import { HOMED, streamText } from "./binary.ts";

export interface MediaFrame {
  id?: number | string;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export interface ToolAnswer {
  content: string;
  isError: boolean;
  images: { mime: string; data: Uint8Array; alt?: string }[];
}

export interface MediaRig extends AsyncDisposable {
  /** The tools the plugin registered: name → risk. */
  tools: Record<string, string>;
  /** The facilities it announced. */
  facilities: string[];
  tool(name: string, args: Record<string, unknown>): Promise<ToolAnswer>;
  /** Send a request as the kernel; resolves with the whole reply frame (result or error). */
  request(method: string, params: unknown): Promise<MediaFrame>;
  alive(): boolean;
  stderr(): string;
}

/**
 * Start the plugin; `media` and `roots` become config/get's answer for "tools" (and for
 * "tools.files" and "tools.media", each its own table); `path` is its
 * PATH (a test hides a program by leaving its folder out); `plugin` is which built-in to run.
 */
export async function startMediaPlugin(
  dataDir: string,
  media: Record<string, unknown> = {},
  roots: string[] = ["workspace"],
  path = process.env.PATH ?? "/usr/bin:/bin",
  plugin = "media",
  env: Record<string, string> = {},
): Promise<MediaRig> {
  const proc = Bun.spawn([HOMED, "plugin", plugin], {
    env: {
      ...env,
      PATH: path,
      HOME: process.env.HOME ?? "/root",
      HOMED_PLUGIN_NAME: plugin,
      HOMED_PLUGIN_TRANSPORT: "stdio",
    },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const err = streamText(proc.stderr);
  const send = (frame: object) => {
    proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...frame })}\n`);
    proc.stdin.flush();
  };
  const pending = new Map<string, (f: MediaFrame) => void>();
  const tools: Record<string, string> = {};
  const facilities: string[] = [];
  let readyResolve!: () => void;
  const ready = new Promise<void>((r) => {
    readyResolve = r;
  });
  const defaults = {
    speech_url: "",
    speech_key_secret: "",
    tts_model: "tts-1",
    tts_voice: "alloy",
    stt_model: "whisper-1",
    ocr_languages: "eng+chi_sim",
    max_file_mb: 200,
    max_pdf_pages: 500,
    timeout_ms: 120_000,
    display: "",
  };
  const answer = (f: MediaFrame) => {
    switch (f.method) {
      case "plugin/hello":
        return { kernelVersion: "test", dataDir, listen: "127.0.0.1:0", logLevel: "info", inlineBulkLimit: 8 << 20 };
      case "config/get": {
        // The whole [tools] table (the media plugin) or one plugin's section of it (the files plugin).
        const tools = { files: { roots, max_read_kb: 256, max_write_kb: 10240 }, media: { ...defaults, ...media } };
        const section = (f.params as { section?: string } | undefined)?.section ?? "tools";
        return section === "tools" ? tools : (tools[section.replace(/^tools\./, "") as keyof typeof tools] ?? {});
      }
      case "tools/register": {
        for (const t of (f.params as { tools: { name: string; risk: string }[] }).tools) tools[t.name] = t.risk;
        return {};
      }
      case "facility/ready":
        facilities.push((f.params as { facility: string }).facility);
        readyResolve();
        return { ok: true };
      case "plugin/ready":
        readyResolve();
        return { ok: true };
      default:
        return {};
    }
  };
  const reading = (async () => {
    const decoder = new TextDecoder();
    let buffered = "";
    for await (const chunk of proc.stdout) {
      buffered += decoder.decode(chunk, { stream: true });
      for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
        const frame = JSON.parse(buffered.slice(0, nl)) as MediaFrame;
        buffered = buffered.slice(nl + 1);
        if (frame.method !== undefined && frame.id !== undefined) send({ id: frame.id, result: answer(frame) });
        else if (frame.method === undefined && frame.id !== undefined) pending.get(String(frame.id))?.(frame);
      }
    }
  })();
  const exited = proc.exited.then(() => readyResolve());
  await ready;
  if (proc.exitCode !== null) throw new Error(`the ${plugin} plugin exited (${proc.exitCode}): ${err.text()}`);
  let next = 0;
  const request = (method: string, params: unknown) =>
    new Promise<MediaFrame>((resolve, reject) => {
      const id = `k${++next}`;
      pending.set(id, resolve);
      proc.exited.then(() => reject(new Error(`the ${plugin} plugin exited: ${err.text()}`)));
      send({ id, method, params });
    });
  return {
    tools,
    facilities,
    request,
    async tool(name, args) {
      const f = await request("tool/run", { name, callId: `c${next}`, arguments: args, conv: "t", untrusted: false });
      if (f.error) throw new Error(`tool/run ${name}: ${f.error.message}`);
      const r = f.result as {
        content: string;
        isError?: boolean;
        images?: { mime: string; data: { b64: string }; alt?: string }[];
      };
      return {
        content: r.content,
        isError: r.isError ?? false,
        images: (r.images ?? []).map((i) => ({ mime: i.mime, alt: i.alt, data: Buffer.from(i.data.b64, "base64") })),
      };
    },
    alive: () => proc.exitCode === null,
    stderr: () => err.text(),
    async [Symbol.asyncDispose]() {
      proc.stdin.end();
      proc.kill();
      await exited;
      await reading.catch(() => {});
    },
  };
}
