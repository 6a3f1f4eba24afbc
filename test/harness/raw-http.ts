/**
 * HTTP/1.1 over a bare TCP socket, for requests fetch() will not send: a Host header of our
 * choosing, a header given twice, a chosen source address (127.0.0.2 is another client).
 */
import { connect } from "node:net";

export interface RawResponse {
  status: number;
  /** Header names lower-cased; a repeated header keeps its last value. */
  headers: Record<string, string>;
  body: string;
}

/**
 * Send `headers` exactly as given (order and repeats kept) and read the answer to the end;
 * the request always closes the connection.
 */
export function rawRequest(
  url: string,
  opts: { method?: string; path?: string; headers: [string, string][]; body?: string; localAddress?: string },
): Promise<RawResponse> {
  const u = new URL(url);
  const body = opts.body ?? "";
  const lines = [
    `${opts.method ?? "GET"} ${opts.path ?? u.pathname} HTTP/1.1`,
    ...opts.headers.map(([k, v]) => `${k}: ${v}`),
    "Connection: close",
  ];
  if (body) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  const request = `${lines.join("\r\n")}\r\n\r\n${body}`;
  return new Promise((resolve, reject) => {
    const socket = connect(
      { host: u.hostname.replace(/^\[|\]$/g, ""), port: Number(u.port), localAddress: opts.localAddress },
      () => socket.write(request),
    );
    const chunks: Buffer[] = [];
    socket.on("data", (d: Buffer) => chunks.push(d));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const split = text.indexOf("\r\n\r\n");
      const [statusLine = "", ...headerLines] = text.slice(0, split < 0 ? text.length : split).split("\r\n");
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
      if (!status) return reject(new Error(`not an HTTP response: ${JSON.stringify(text.slice(0, 200))}`));
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const i = line.indexOf(":");
        if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      resolve({ status, headers, body: split < 0 ? "" : text.slice(split + 4) });
    });
  });
}
