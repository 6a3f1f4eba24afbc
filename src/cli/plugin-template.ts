/**
 * The files of a new plugin (`homed plugin new NAME`): a manifest, one tool with a valibot
 * schema and examples, one stage handler, a test that runs the plugin against a stand-in kernel,
 * and what an editor and npm need. The plugin counts the answers homed sends (its `after_output`
 * handler) and its tool says the count, so one call shows both halves working.
 */

/** What a template needs to know: the plugin's name and the versions it is written against. */
export interface TemplateVars {
  name: string;
  sdkVersion: string;
  valibotVersion: string;
}

/** The tool's name: the plugin's, then `_hello` (tool names are at most 64 characters). */
export function helloTool(name: string): string {
  return `${name.replaceAll("-", "_")}_hello`;
}

/** Path → contents, relative to the plugin's folder. */
export function templateFiles({ name, sdkVersion, valibotVersion }: TemplateVars): Record<string, string> {
  const tool = helloTool(name);
  const manifest = {
    name,
    description: `Made by homed plugin new: ${tool} greets someone; an after_output handler counts answers.`,
    transport: "stdio",
    requires: ["kernel.agent"],
    main: "main.ts",
  };
  const pkg = {
    name: `homed-plugin-${name}`,
    version: "0.1.0",
    private: true,
    type: "module",
    scripts: { test: "bun test", typecheck: "tsc --noEmit" },
    dependencies: { "@homed/plugin-sdk": "file:vendor/homed-plugin-sdk", valibot: `^${valibotVersion}` },
    devDependencies: { "@types/bun": "^1.3.0", typescript: "^5.9.0" },
  };
  const tsconfig = {
    compilerOptions: {
      target: "ESNext",
      module: "Preserve",
      moduleResolution: "bundler",
      lib: ["ESNext"],
      types: ["bun"],
      strict: true,
      noEmit: true,
      allowImportingTsExtensions: true,
      verbatimModuleSyntax: true,
      skipLibCheck: true,
    },
  };
  return {
    "plugin.json": `${JSON.stringify(manifest, null, 2)}\n`,
    "package.json": `${JSON.stringify(pkg, null, 2)}\n`,
    "tsconfig.json": `${JSON.stringify(tsconfig, null, 2)}\n`,
    "tools.ts": `/**
 * ${name}'s tool: its name, words for the model, argument schema and risk class, and the code
 * behind it as a plain function (main.ts connects the two; main.test.ts tests both).
 */
import * as v from "valibot";
import type { ToolSpec } from "@homed/plugin-sdk";

export const HELLO = {
  name: "${tool}",
  description: "Greet someone by name, and say how many answers homed has sent since this plugin started.",
  input: v.strictObject({
    name: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(100), v.description("Who to greet, e.g. Ada.")),
  }),
  // "read": no side effects, so it may run unasked. write, exec, network and secret are asked about.
  risk: "read",
  // Its answer is the plugin's own words, not text from outside: say why, or it is marked untrusted.
  ownOutput: "a greeting made of the name the model gave",
  // What a person says when they need it: ranks the tool for a turn; never sent to the model.
  examples: ["say hello to Ada", "greet my friend"],
} satisfies ToolSpec;

/** The tool's answer. */
export function greet(name: string, answers: number): string {
  return \`Hello, \${name}! homed has sent \${answers} answer\${answers === 1 ? "" : "s"} since ${name} started.\`;
}
`,
    "main.ts": `/**
 * The ${name} plugin. homed runs this file itself ("main" in plugin.json) with the Bun runtime
 * it carries; it speaks JSON-RPC on stdin/stdout ("transport": "stdio") and logs key=value
 * lines on stderr (plugin.log), which homed keeps with its own log.
 */
import { connectPlugin, withRun } from "@homed/plugin-sdk";
import { greet, HELLO } from "./tools.ts";

const plugin = await connectPlugin();
let answers = 0;

// One tool. Its arguments are checked against HELLO.input before the function sees them.
await plugin.tools([withRun(HELLO, (args) => greet(args.name, answers))]);

// One stage handler: after_output runs once homed has sent an answer. Returning nothing
// changes nothing; other stages may rewrite input, deny a tool call or edit the answer.
await plugin.stage("after_output", (payload) => {
  answers++;
  plugin.log.info("answer sent", { conv: payload.conv, chars: payload.text.length });
  return undefined;
});

// Handlers first, then ready: requests may follow at once.
await plugin.ready();
`,
    "main.test.ts": `/**
 * ${name}'s tests: the tool as a function, and the whole plugin started as homed starts it,
 * answered by a stand-in for the kernel over stdin/stdout. Run: bun test (or, with no Bun
 * installed, BUN_BE_BUN=1 homed test).
 */
import { expect, test } from "bun:test";
import * as v from "valibot";
import { toolDefinition } from "@homed/plugin-sdk";
import { greet, HELLO } from "./tools.ts";

test("${tool} greets by name and counts answers", () => {
  expect(greet("Ada", 1)).toBe("Hello, Ada! homed has sent 1 answer since ${name} started.");
  expect(greet("Ada", 2)).toContain("2 answers");
});

test("its arguments are checked, and the model sees a JSON Schema with its risk class", () => {
  expect(v.safeParse(HELLO.input, { name: "" }).success).toBe(false);
  expect(v.safeParse(HELLO.input, { name: "Ada", extra: 1 }).success).toBe(false);
  const def = toolDefinition(HELLO);
  expect(def.risk).toBe("read");
  expect(def.parameters).toMatchObject({ type: "object", required: ["name"] });
});

test("the plugin says hello, registers its tool and stage, and answers a call", async () => {
  const proc = Bun.spawn([process.execPath, "run", "main.ts"], {
    cwd: import.meta.dir,
    env: { ...process.env, HOMED_PLUGIN_NAME: "${name}", HOMED_PLUGIN_TRANSPORT: "stdio" },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  const send = (msg: object) => {
    proc.stdin.write(\`\${JSON.stringify({ jsonrpc: "2.0", ...msg })}\\n\`);
    proc.stdin.flush();
  };
  const seen: string[] = [];
  let toolResult: unknown;
  let buffered = "";
  const decoder = new TextDecoder();
  for await (const chunk of proc.stdout) {
    buffered += decoder.decode(chunk, { stream: true });
    let nl = buffered.indexOf("\\n");
    while (nl >= 0) {
      const msg = JSON.parse(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
      nl = buffered.indexOf("\\n");
      if (msg.method) seen.push(msg.method);
      if (msg.method === "plugin/hello")
        send({
          id: msg.id,
          result: {
            kernelVersion: "test",
            dataDir: import.meta.dir,
            listen: "",
            logLevel: "warn",
            inlineBulkLimit: 1 << 20,
          },
        });
      else if (msg.method === "stages/register") send({ id: msg.id, result: { ids: [1] } });
      else if (msg.method === "tools/register" || msg.method === "plugin/ready")
        send({ id: msg.id, result: { ok: true } });
      if (msg.method === "plugin/ready")
        send({
          id: 100,
          method: "tool/run",
          params: { name: "${tool}", arguments: { name: "Ada" }, callId: "c1", conv: "t", untrusted: false },
        });
      if (msg.id === 100) {
        toolResult = msg.result;
        proc.stdin.end(); // the kernel is gone: a plugin exits when its stdin closes
      }
    }
  }
  expect(await proc.exited).toBe(0);
  expect(seen).toEqual(["plugin/hello", "tools/register", "stages/register", "plugin/ready"]);
  expect(toolResult).toEqual({ content: "Hello, Ada! homed has sent 0 answers since ${name} started.", isError: false });
});
`,
    "README.md": `# ${name}

A homed plugin made by \`homed plugin new ${name}\`: the tool \`${tool}\` (tools.ts, wired in
main.ts) and an \`after_output\` stage handler. homed loads it from \`DATA/plugins/${name}/\` when
the daemon starts and runs \`main.ts\` with the Bun inside homed, so nothing needs installing:
the SDK (vendor/homed-plugin-sdk, version ${sdkVersion}) and valibot are already in this folder.

- Test: \`bun test\`, or with no Bun installed \`BUN_BE_BUN=1 homed test\`.
- Type-check: \`npm install\` once (TypeScript and Bun's types), then \`npx tsc\`.
- See it run: restart homed, then \`homed status\` lists the plugin and \`homed chat "say hello to Ada"\`.

How plugins work — the manifest, the protocol, risk classes and facilities — is in homed's
docs/plugins.md (also this SDK's README: vendor/homed-plugin-sdk/README.md).
`,
  };
}
