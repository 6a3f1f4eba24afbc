/**
 * The JSON-lines side of the notify benchmark: the same events as one JSON object per line on
 * a plain pipe (stdin). Decodes and checksums every message like bench/plugins/sink.ts, and
 * prints `{count,sum}` when it reads the line `"end"`.
 */
export {};

let count = 0;
let sum = 0;
let buf = "";
const dec = new TextDecoder();
for await (const chunk of Bun.stdin.stream()) {
  buf += dec.decode(chunk, { stream: true });
  let start = 0;
  for (let nl = buf.indexOf("\n", start); nl >= 0; nl = buf.indexOf("\n", start)) {
    const line = buf.slice(start, nl);
    start = nl + 1;
    const ev = JSON.parse(line) as { seq: number; stamp: number; data: string } | "end";
    if (ev === "end") {
      process.stdout.write(`${JSON.stringify({ count, sum })}\n`);
      process.exit(0);
    }
    const data = Buffer.from(ev.data, "base64");
    sum = (sum + ev.seq + (ev.stamp > 0 ? 1 : 0) + (data[data.length - 1] as number)) >>> 0;
    count++;
  }
  buf = buf.slice(start);
}
