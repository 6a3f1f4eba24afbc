/** Reading a person's input from stdin: line by line as typed, or all of it when piped. */

/** Lines typed on stdin, read lazily; null once stdin has ended (or was never there). */
export function stdinLines(): () => Promise<string | null> {
  let next: (() => Promise<string | null>) | null = null;
  // stdin is opened on the first read only: a command that never reads it leaves it alone.
  return async () => {
    next ??= linesOf(Bun.stdin.stream());
    return await next();
  };
}

/** The lines of `stream`, one per call (the last one even without its newline); null at its end. */
export function linesOf(stream: ReadableStream<Uint8Array>): () => Promise<string | null> {
  let buffered = "";
  let ended = false;
  const reader = stream.getReader();
  const dec = new TextDecoder();
  return async () => {
    for (;;) {
      const nl = buffered.indexOf("\n");
      if (nl >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        return line;
      }
      if (ended) return null;
      const { value, done } = await reader.read();
      if (done) {
        ended = true;
        if (buffered) {
          const rest = buffered;
          buffered = "";
          return rest;
        }
        return null;
      }
      buffered += dec.decode(value, { stream: true });
    }
  };
}

/** All of stdin as text (a message piped in: `echo hi | homed chat`). */
export async function readAllStdin(): Promise<string> {
  return await new Response(Bun.stdin.stream()).text();
}
