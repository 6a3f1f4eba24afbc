/** The status line for tools: how many, by risk class, most common first, and where each is listed. */
import { describe, expect, test } from "bun:test";
import { formatTools } from "../../src/client/format-status.ts";
import { formatUsage } from "../../src/protocol/usage.ts";

describe("formatTools", () => {
  test("counts by risk class instead of naming every tool", () => {
    const tools = [
      { name: "files_read", risk: "read" },
      { name: "files_list", risk: "read" },
      { name: "shell_run", risk: "exec" },
      { name: "files_write", risk: "write" },
      { name: "notes_edit", risk: "write" },
      { name: "media_screenshot", risk: "secret" },
      { name: "memory_search", risk: "read" },
    ];
    expect(formatTools(tools)).toBe("7 (3 read, 2 write, 1 exec, 1 secret); each with `homed tools list`");
    expect(formatTools([])).toBe("none");
  });
});

describe("formatUsage", () => {
  test("all turns' tokens, with the cached part and its share of the input", () => {
    expect(formatUsage({ turns: 0, inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 })).toBe("no turns yet");
    expect(formatUsage({ turns: 1, inputTokens: 1200, outputTokens: 40, cachedInputTokens: 0 })).toBe(
      "1200 in / 40 out over 1 turn",
    );
    expect(formatUsage({ turns: 12, inputTokens: 12000, outputTokens: 800, cachedInputTokens: 9000 })).toBe(
      "12000 in (9000 cached, 75 %) / 800 out over 12 turns",
    );
  });
});
