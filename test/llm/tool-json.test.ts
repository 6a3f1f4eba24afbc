/**
 * ToolJson: the start of a request body with its tools' JSON kept from call to call. Whatever
 * the calls offer (the same tools again, a description or name changed on the same schema
 * object, a new schema, none), the head parses to the body, the tools as the wire writes them
 * and an open messages array.
 */
import { describe, expect, test } from "bun:test";
import { ToolJson } from "../../src/llm/tool-json.ts";
import type { ToolSpec } from "../../src/llm/types.ts";
import { mulberry32 } from "../harness/prng.ts";

const wire = (t: ToolSpec) => ({
  type: "function",
  function: { name: t.name, description: t.description, parameters: t.parameters },
});
const parse = (head: string) => JSON.parse(`${head}]}`) as Record<string, unknown>;

describe("ToolJson", () => {
  test("a head is the body, its tools and an open messages array, over random calls", () => {
    const rand = mulberry32(7);
    const schemas = Array.from({ length: 6 }, (_, i) => ({
      type: "object",
      properties: { [`p${i}`]: { type: "string" } },
    }));
    const tools: ToolSpec[] = schemas.map((parameters, i) => ({
      name: `t${i}`,
      description: `tool ${i} …`,
      parameters,
    }));
    const json = new ToolJson(wire);
    for (let call = 0; call < 300; call++) {
      const r = rand();
      const i = Math.floor(rand() * tools.length);
      const t = tools[i] as ToolSpec;
      // The same schema object under a new description or name, or a new schema.
      if (r < 0.1) tools[i] = { ...t, description: `${t.description}!` };
      else if (r < 0.2) tools[i] = { ...t, name: `${t.name}x` };
      else if (r < 0.25) tools[i] = { ...t, parameters: { type: "object", properties: { q: { type: "number" } } } };
      const offered = rand() < 0.1 ? [] : tools.filter(() => rand() < 0.8);
      const body = { model: "m", stream: true, ...(rand() < 0.5 ? { temperature: 0.5 } : {}) };
      const got = parse(json.head(body, offered));
      expect(got).toEqual({ ...body, ...(offered.length ? { tools: offered.map(wire) } : {}), messages: [] });
    }
  });

  test("an empty body still makes a valid head", () => {
    const t: ToolSpec = { name: "a", description: "b", parameters: { type: "object" } };
    expect(parse(new ToolJson(wire).head({}, [t]))).toEqual({ tools: [wire(t)], messages: [] });
    expect(parse(new ToolJson(wire).head({}, undefined))).toEqual({ messages: [] });
  });
});
