/**
 * `homed chat`: a message from the arguments or stdin, the answer streamed; with neither, at a
 * terminal, the interactive session (src/client/chat-session.ts).
 */
import { tokenWords } from "../protocol/usage.ts";
import { chatOnce } from "../client/chat.ts";
import { readAllStdin, stdinLines } from "../client/stdin-lines.ts";
import { HomedError } from "../protocol/errors.ts";
import type { DataPaths } from "../kernel/data-paths.ts";

export async function runChat(
  paths: DataPaths,
  values: Record<string, string | boolean>,
  rest: string[],
): Promise<number> {
  const conv = typeof values.conv === "string" ? values.conv : "cli";
  let text = rest.join(" ").trim();
  let readLine = stdinLines();
  if (!text && process.stdin.isTTY) {
    if (values.json)
      throw new HomedError("usage", "-json needs a message: the interactive session has no JSON form", {
        flag: "json",
      });
    const { runChatSession } = await import("../client/chat-session.ts");
    return await runChatSession(paths.socket, conv, { input: process.stdin, output: process.stdout });
  }
  if (!text) {
    // The message is stdin; nothing is left to answer an approval with.
    text = (await readAllStdin()).trim();
    readLine = async () => null;
  }
  if (!text) throw new HomedError("usage", `chat needs a message, e.g. homed chat "hello", or on stdin`);
  const result = await chatOnce(
    paths.socket,
    { text, conv },
    {
      stream: process.stdout.isTTY === true && !values.json,
      out: (t) => void (values.json ? null : process.stdout.write(t)),
      err: (t) => void process.stderr.write(t),
      readLine,
    },
  );
  if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  const c = result.conversation;
  process.stderr.write(
    `[${result.stopReason}; ${tokenWords(result.usage)} tokens${c ? `; conversation: ${c.turns} ${c.turns === 1 ? "turn" : "turns"}, ${tokenWords(c)}` : ""}]\n`,
  );
  return result.stopReason === "error" ? 1 : 0;
}
