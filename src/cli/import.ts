/**
 * `homed import FILE [-format chatgpt|claude|jsonl] [-data DIR] [-json]`: a person's history
 * from a ChatGPT or Claude export or JSON lines (src/import) into memory, through the running
 * daemon's control socket (`memory.import`) when one runs on the data dir, else into the data
 * dir itself. Importing again adds nothing that is there. Bad records are reported on stderr
 * with their line and skipped; the rest is imported. Progress goes to stderr, the summary to
 * stdout. Exit 0, or 1 when a record was bad (everything else was imported).
 */
import * as v from "valibot";
import { existsSync, statSync } from "node:fs";
import { basename } from "node:path";
import { ControlMethod } from "../protocol/control.ts";
import { ExitCode, HomedError } from "../protocol/errors.ts";
import { describeIssues } from "../protocol/jsonrpc.ts";
import { type ImportedConversation, type MemoryImportParams, MemoryImportResult } from "../protocol/import.ts";
import { connectUnixRpc, type RpcClient } from "../ipc/unix-rpc.ts";
import { throwDaemonGone } from "../client/control-client.ts";
import { ProgressBar } from "../client/progress-bar.ts";
import type { ImportFormat, LeftOut } from "../import/import-record.ts";
import { readExport } from "../import/read-export.ts";
import type { DataPaths } from "../kernel/data-paths.ts";
import { ImportBatches } from "./import-batches.ts";

/** A call may take a while on a loaded machine; the daemon answers each within seconds. */
const CALL_TIMEOUT_MS = 120_000;
/** Bad records kept for the summary (all are counted, and each is printed as it comes). */
const BAD_KEPT = 100;

export interface ImportSummary {
  file: string;
  format: ImportFormat | null;
  /** "daemon": through the running daemon; "data dir": written directly. */
  into: "daemon" | "data dir";
  conversations: number;
  added: number;
  already: number;
  leftOut: LeftOut;
  bad: number;
  badRecords: { line: number; reason: string }[];
  seconds: number;
}

interface Sink {
  into: ImportSummary["into"];
  send(conversations: ImportedConversation[]): Promise<MemoryImportResult>;
  close(): void;
}

const quietLog = { warn: () => {}, debug: () => {} };

/** The daemon on `socket`, or null when none answers there. */
async function daemonSink(socket: string): Promise<Sink | null> {
  if (!existsSync(socket)) return null;
  let client: RpcClient;
  try {
    client = await connectUnixRpc(socket, quietLog, { timeoutMs: CALL_TIMEOUT_MS });
  } catch {
    return null; // a socket file left by a daemon that died: nobody listens
  }
  return {
    into: "daemon",
    async send(conversations) {
      const raw = await client.peer
        .request(ControlMethod.MemoryImport, { conversations } satisfies v.InferInput<typeof MemoryImportParams>)
        .catch(throwDaemonGone);
      const r = v.safeParse(MemoryImportResult, raw);
      if (!r.success)
        throw new HomedError("upstream", `daemon sent a malformed memory.import result: ${describeIssues(r.issues)}`);
      return r.output;
    },
    close: () => client.close(),
  };
}

async function openSink(paths: DataPaths): Promise<Sink> {
  const daemon = await daemonSink(paths.socket);
  if (daemon) return daemon;
  const { openLocalImport } = await import("./import-local.ts");
  return { into: "data dir", ...openLocalImport(paths) };
}

/** The file's bytes, counted as they are read (for the progress bar). */
async function* counted(file: string, read: { bytes: number }): AsyncGenerator<Uint8Array> {
  for await (const chunk of Bun.file(file).stream()) {
    read.bytes += chunk.length;
    yield chunk;
  }
}

export async function runImport(
  paths: DataPaths,
  file: string,
  opts: { format?: ImportFormat; json: boolean },
): Promise<number> {
  let size: number;
  try {
    const st = statSync(file);
    if (!st.isFile()) throw new HomedError("not_found", `${file} is not a file`, { file });
    size = st.size;
  } catch (err) {
    if (err instanceof HomedError) throw err;
    throw new HomedError("not_found", `cannot read ${file}: ${(err as Error).message}`, { file });
  }
  const t0 = performance.now();
  const sink = await openSink(paths);
  const summary: ImportSummary = {
    file,
    format: null,
    into: sink.into,
    conversations: 0,
    added: 0,
    already: 0,
    leftOut: {},
    bad: 0,
    badRecords: [],
    seconds: 0,
  };
  const read = { bytes: 0 };
  const progress = new ProgressBar(process.stderr, "homed import", size, "messages");
  const batches = new ImportBatches(async (conversations) => {
    const r = await sink.send(conversations);
    summary.added += r.added;
    summary.already += r.already;
    progress.update(read.bytes, summary.added + summary.already);
  });
  const convs = new Set<string>();
  try {
    const reading = await readExport(counted(file, read), opts.format).catch((err: unknown) => {
      if (err instanceof HomedError) throw new HomedError(err.code, `${file}: ${err.message}`, { ...err.data, file });
      throw err;
    });
    summary.format = reading.format;
    for await (const r of reading.records) {
      if (r.kind === "bad") {
        summary.bad++;
        if (summary.badRecords.length < BAD_KEPT) summary.badRecords.push({ line: r.line, reason: r.reason });
        progress.note(`homed import: ${basename(file)}: line ${r.line}: ${r.reason}; skipped`);
        continue;
      }
      convs.add(r.conversation.conv);
      for (const [why, n] of Object.entries(r.left)) summary.leftOut[why] = (summary.leftOut[why] ?? 0) + n;
      await batches.add(r.conversation);
      progress.update(read.bytes, summary.added + summary.already);
    }
    await batches.end();
  } finally {
    progress.end();
    sink.close();
  }
  summary.conversations = convs.size;
  summary.seconds = Math.round(performance.now() - t0) / 1000;
  process.stdout.write(opts.json ? `${JSON.stringify(summary)}\n` : `${formatImportSummary(summary)}\n`);
  return summary.bad > 0 ? ExitCode.Failure : ExitCode.Ok;
}

const FORMAT_NAME: Record<ImportFormat, string> = {
  chatgpt: "a ChatGPT export",
  claude: "a Claude export",
  jsonl: "JSON lines",
  homed: "homed's export of a conversation",
};

const n = (x: number) => x.toLocaleString("en-US");
const plural = (x: number, one: string, many = `${one}s`) => `${n(x)} ${x === 1 ? one : many}`;

/** What `homed import` prints when it is done. */
export function formatImportSummary(s: ImportSummary): string {
  const whole = Object.entries(s.leftOut)
    .filter(([why]) => why !== "non-text parts")
    .sort((a, b) => b[1] - a[1]);
  const parts = s.leftOut["non-text parts"] ?? 0;
  const left = [
    ...(whole.length
      ? [
          `${plural(
            whole.reduce((t, [, x]) => t + x, 0),
            "message",
          )} (${whole.map(([why, x]) => `${n(x)} ${why}`).join(", ")})`,
        ]
      : []),
    ...(parts ? [`${plural(parts, "non-text part")} (images, files, tool calls) of messages kept`] : []),
  ];
  const rate = s.seconds > 0 ? Math.round((s.added + s.already) / s.seconds) : 0;
  const rows: [string, string][] = [
    [
      "read",
      `${s.file}${s.format ? ` as ${FORMAT_NAME[s.format]}` : ""}, into ${s.into === "daemon" ? "the running daemon" : "the data dir"}`,
    ],
    ["conversations", n(s.conversations)],
    ["added", plural(s.added, "message")],
    ["already there", plural(s.already, "message")],
    ["left out", left.length ? left.join("; ") : "nothing"],
    ["bad records", s.bad ? `${n(s.bad)}, skipped (their lines are above)` : "none"],
    ["time", `${s.seconds.toFixed(1)} s (${n(rate)} messages/s)`],
  ];
  const w = Math.max(...rows.map((r) => r[0].length)) + 2;
  return rows.map(([k, val]) => `${k.padEnd(w)}${val}`).join("\n");
}
