/**
 * Child process of fetch-tls.test.ts: runs fetch_url's work once and prints the outcome as
 * JSON. It is its own process because the test CA has to be trusted from the start
 * (NODE_EXTRA_CA_CERTS), which the test runner's process cannot do.
 * Usage: bun fetch-tls-client.ts URL ADDRESS  (every name resolves to ADDRESS)
 */
import { fetchUrl } from "../../plugins/fetch/fetch-url.ts";
import { fetchConfig } from "./fetch-site.ts";

const [url, address] = process.argv.slice(2) as [string, string];
try {
  const r = await fetchUrl(
    { url },
    { config: fetchConfig({ allow_hosts: [address] }), userAgent: "homed-test/1", resolve: async () => [address] },
  );
  console.log(JSON.stringify({ ok: true, content: r.content }));
} catch (err) {
  console.log(JSON.stringify({ ok: false, error: (err as Error).message }));
}
