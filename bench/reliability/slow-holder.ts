/**
 * One process of the security.slow_conns_healthz_ms attack (security.ts): holds `count` slow
 * request bodies to URL from the given loopback addresses (test/harness/slow-clients.ts), prints
 * `sent` once every connection has been tried, and on each line of stdin prints how many are
 * still open; it ends when stdin closes. Several of these together hold more connections than
 * one process's descriptor limit allows.
 *
 *   bun slow-holder.ts URL COUNT ADDRESS...
 */
import { holdSlowBodies } from "../../test/harness/slow-clients.ts";

const [url, count, ...from] = process.argv.slice(2);
if (!url || !count || from.length === 0) throw new Error("usage: slow-holder.ts URL COUNT ADDRESS...");
using slow = holdSlowBodies(url, { count: Number(count), from, path: "/api/uploads?name=a.txt" });
// A connection the server refused at once (the budget's 429) may fail to send: tried is what counts.
await slow.tried;
process.stdout.write("sent\n");
for await (const _ of console) {
  const open = slow.conns.filter((c) => !c.closed).length;
  process.stdout.write(`${JSON.stringify({ open, tried: slow.conns.length })}\n`);
}
