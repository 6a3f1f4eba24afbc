/**
 * fetch_url over HTTPS to a pinned address: the request goes to the address the guard checked,
 * yet TLS sends the host name (SNI) and checks the certificate against it, so pinning neither
 * breaks HTTPS nor lets a certificate for another name pass. The server uses a self-signed
 * certificate for docs.test (test/fixtures/tls), trusted by the client through NODE_EXTRA_CA_CERTS.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { BUN, ROOT } from "../harness/binary.ts";

const TLS = join(ROOT, "test/fixtures/tls");

async function fetchInChild(url: string, address: string): Promise<{ ok: boolean; content?: string; error?: string }> {
  const proc = Bun.spawn([BUN, join(import.meta.dir, "fetch-tls-client.ts"), url, address], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", NODE_EXTRA_CA_CERTS: join(TLS, "docs-test.crt") },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`client exited ${code}: ${err}`);
  return JSON.parse(out);
}

describe("fetch_url over HTTPS", () => {
  test("a pinned name gets its own certificate checked; another name's is refused", async () => {
    const hosts: string[] = [];
    const server = Bun.serve({
      hostname: "127.0.0.2",
      port: 0,
      tls: { cert: Bun.file(join(TLS, "docs-test.crt")), key: Bun.file(join(TLS, "docs-test.key")) },
      fetch(req) {
        hosts.push(req.headers.get("host") ?? "");
        return new Response("<p>served over TLS</p>", { headers: { "content-type": "text/html" } });
      },
    });
    try {
      const good = await fetchInChild(`https://docs.test:${server.port}/page`, "127.0.0.2");
      expect(good.error).toBeUndefined();
      expect(good.content).toContain(`URL: https://docs.test:${server.port}/page`);
      expect(good.content).toContain("served over TLS");
      expect(hosts).toEqual([`docs.test:${server.port}`]);

      const wrong = await fetchInChild(`https://other.test:${server.port}/page`, "127.0.0.2");
      expect(wrong.ok).toBe(false);
      expect(wrong.error).toContain(
        `fetch_url: cannot fetch https://other.test:${server.port}/page: ERR_TLS_CERT_ALTNAME_INVALID`,
      );
      expect(hosts).toHaveLength(1);
    } finally {
      server.stop(true);
    }
  });
});
