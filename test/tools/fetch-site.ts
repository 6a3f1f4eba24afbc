/**
 * A local web site for the fetch suites: Bun.serve on a loopback address with the routes they
 * need (an article, long text, an endless body, a slow answer, redirects, binary), recording
 * every request it gets (path and Host header).
 */
import type { FetchConfig } from "../../plugins/fetch/config.ts";

export const ARTICLE = `<!doctype html>
<html><head><title>Tide &amp; Moon</title><style>body { color: red }</style>
<script>document.write("<p>SCRIPT TEXT</p>")</script></head>
<body>
<header><a href="/">Site home</a><nav><a href="/menu">MENU LINK</a></nav></header>
<main>
<article>
<h1>Why tides follow the moon</h1>
<p>The moon pulls the oceans. See the <a href="/physics/gravity?x=1">gravity notes</a> and
<a href="https://en.example.org/wiki/Tide">the encyclopedia</a>.</p>
<h2>Two bulges</h2>
<ul><li>one under the moon</li><li>one on the far side</li></ul>
<pre><code>height = k * cos(2 * angle)</code></pre>
<table><tr><th>place</th><th>range</th></tr><tr><td>Fundy</td><td>16 m</td></tr></table>
<p>Long paragraph. ${"The water rises and falls twice a day. ".repeat(20)}</p>
</article>
</main>
<aside>SIDEBAR TEXT</aside>
<footer>FOOTER TEXT <a href="/legal">legal</a></footer>
</body></html>`;

/** 60 numbered lines of 1000 characters: three pages. */
export const LONG_TEXT = Array.from({ length: 60 }, (_, i) => `${String(i).padStart(4, "0")} ${"x".repeat(995)}`).join(
  "\n",
);

export interface Site {
  url: string;
  port: number;
  /** path?query and Host header of every request, in order. */
  seen: { path: string; host: string }[];
  stop(): void;
  [Symbol.dispose](): void;
}

/** Serve the routes on `hostname` (127.0.0.1 unless told); `extra` adds or replaces routes. */
export function startSite(
  hostname = "127.0.0.1",
  extra: Record<string, (req: Request) => Response | Promise<Response>> = {},
): Site {
  const seen: Site["seen"] = [];
  const routes: Record<string, (req: Request) => Response | Promise<Response>> = {
    "/article": () => new Response(ARTICLE, { headers: { "content-type": "text/html; charset=utf-8" } }),
    "/long.txt": () => new Response(LONG_TEXT, { headers: { "content-type": "text/plain" } }),
    "/data.json": () => new Response('{"a":1,"b":[true,null]}', { headers: { "content-type": "application/json" } }),
    "/image.png": () =>
      new Response(new Uint8Array(2048).fill(7), {
        headers: { "content-type": "image/png", "content-length": "2048" },
      }),
    // A stream body goes out with no Content-Type at all.
    "/mystery": () =>
      new Response(
        new ReadableStream({
          start(c) {
            c.enqueue(new Uint8Array([0x89, 0x50, 0x00, 0x01, 0x02]));
            c.close();
          },
        }),
      ),
    // Never ends: a reader that does not stop at the cap never returns.
    "/endless": () =>
      new Response(
        new ReadableStream({
          pull(c) {
            c.enqueue(new TextEncoder().encode(`${"y".repeat(1023)}\n`));
          },
        }),
        { headers: { "content-type": "text/plain" } },
      ),
    "/slow": () => new Promise<Response>(() => {}),
    "/hop": (req) => {
      const n = Number(new URL(req.url).searchParams.get("n") ?? 0);
      return new Response(null, { status: 302, headers: { location: n > 0 ? `/hop?n=${n - 1}` : "/article" } });
    },
    "/missing": () =>
      new Response("<html><body><p>No such page here.</p></body></html>", {
        status: 404,
        headers: { "content-type": "text/html" },
      }),
    ...extra,
  };
  const server = Bun.serve({
    hostname,
    port: 0,
    fetch(req) {
      const u = new URL(req.url);
      seen.push({ path: u.pathname + u.search, host: req.headers.get("host") ?? "" });
      const route = routes[u.pathname];
      return route ? route(req) : new Response("not here", { status: 404 });
    },
  });
  const stop = () => void server.stop(true);
  return { url: `http://${hostname}:${server.port}`, port: server.port as number, seen, stop, [Symbol.dispose]: stop };
}

/** [tools.fetch] with its defaults, changed by `over`. */
export function fetchConfig(over: Partial<FetchConfig> = {}): FetchConfig {
  return {
    allow_private: false,
    allow_hosts: [],
    max_kb: 4096,
    timeout_ms: 5000,
    search_provider: "",
    search_url: "",
    search_key_secret: "",
    search_key: "",
    ...over,
  };
}
