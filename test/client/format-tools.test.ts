/** The status line for tools: how many, by risk class, most common first, and where each is listed. */
import { describe, expect, test } from "bun:test";
import { formatTools } from "../../src/client/format-status.ts";

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
