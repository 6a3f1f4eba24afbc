/** Shared by the files plugin's suites: the refusal a files tool gives, as its message. */
import { expect } from "bun:test";
import { FilesError } from "../../plugins/sdk/confine.ts";

/** The FilesError message `fn` throws (fails the test if it does not throw one). */
export async function refusal(fn: () => unknown): Promise<string> {
  try {
    await fn();
  } catch (err) {
    expect(err).toBeInstanceOf(FilesError);
    return (err as Error).message;
  }
  throw new Error("expected a refusal, got success");
}
