/**
 * `promtool check metrics` (from Debian's prometheus package): what a Prometheus server would say
 * of a /metrics body. scripts/ensure-test-tools.sh extracts promtool from the package into
 * dist/tools/bin rather than install the package, which would also enable a Prometheus server.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./binary.ts";

const LOCAL = join(ROOT, "dist/tools/bin/promtool");

/** promtool's verdict on a body: its stdout, its stderr and its exit status. Throws, naming the fix, when it is missing. */
export async function promtoolCheck(body: string): Promise<{ out: string; err: string; code: number }> {
  const bin = Bun.which("promtool") ?? (existsSync(LOCAL) ? LOCAL : null);
  if (!bin)
    throw new Error(
      "promtool is missing: make test extracts it from Debian's prometheus package into dist/tools/bin (scripts/ensure-test-tools.sh)",
    );
  const p = Bun.spawn([bin, "check", "metrics"], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  p.stdin.write(body);
  await p.stdin.end();
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { out, err, code };
}
