/**
 * For the tool suites: run one scripted turn through `homed chat` and read back what each tool
 * call returned, as the model received it (the tool messages of the turn's last model request).
 */
import type { AgentRig } from "../harness/agent-daemon.ts";
import type { FakeToolCall } from "../harness/fake-llm.ts";

interface Message {
  role: string;
  content: string;
}

/**
 * One turn: the model asks for each round of calls in order, then answers "done". Returns the
 * tool results of this turn, in call order, and the chat's stderr (approvals, tool lines).
 */
export async function toolTurn(
  rig: AgentRig,
  rounds: FakeToolCall[][],
  opts: { stdin?: string; conv?: string; text?: string } = {},
): Promise<{ results: string[]; stderr: string; exitCode: number }> {
  rig.llm.script([...rounds.map((toolCalls) => ({ toolCalls })), { text: "done" }]);
  const r = await rig.chat(opts.text ?? "use the tools", {
    stdin: opts.stdin,
    ...(opts.conv ? { conv: opts.conv } : {}),
  });
  const last = rig.llm.requests.at(-1);
  if (!last) throw new Error("the model was never asked");
  const messages = (last.body as { messages: Message[] }).messages;
  const lastUser = messages.map((m) => m.role).lastIndexOf("user");
  const results = messages
    .slice(lastUser)
    .filter((m) => m.role === "tool")
    .map((m) => m.content);
  return { results, stderr: r.stderr, exitCode: r.exitCode };
}
