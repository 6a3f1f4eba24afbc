/**
 * The one error mapping (src/protocol/errors.ts): what each HomedError code becomes on the
 * wire, over HTTP and as an exit status. The daemon-level tests (test/web/http.test.ts,
 * test/cli.test.ts) check the same table end to end; this one pins every row.
 */
import { describe, expect, test } from "bun:test";
import {
  ERROR_MAPPING,
  errorCodeOf,
  HOMED_ERROR_CODES,
  HomedError,
  RpcError,
  toErrorObject,
} from "../../src/protocol/errors.ts";
import { RpcErrorCode } from "../../src/protocol/jsonrpc.ts";

describe("error mapping", () => {
  test("each code has its HTTP and exit status; only malformed requests are the caller's 400", () => {
    const rows = Object.fromEntries(HOMED_ERROR_CODES.map((c) => [c, [ERROR_MAPPING[c].http, ERROR_MAPPING[c].exit]]));
    expect(rows).toEqual({
      usage: [400, 2],
      invalid_params: [400, 1],
      not_found: [404, 1],
      forbidden: [403, 77],
      denied: [403, 1],
      conflict: [409, 1],
      locked: [409, 75],
      unavailable: [503, 69],
      not_running: [503, 69],
      upstream: [502, 69],
      llm: [502, 1],
      cancelled: [500, 1],
      config: [500, 78],
      data_dir: [500, 1],
      store: [500, 1],
      schema_too_new: [500, 1],
      native: [500, 1],
    });
  });

  test("a HomedError crosses JSON-RPC with its code and cause in data, and is recognised on the other side", () => {
    const cause = new Error("connect ECONNREFUSED 127.0.0.1:1");
    const obj = toErrorObject(
      new HomedError("upstream", "cannot reach the mirror", { code: "shadowed", url: "http://x" }, { cause }),
    );
    expect(obj).toEqual({
      code: RpcErrorCode.Application,
      message: "cannot reach the mirror",
      data: { code: "upstream", url: "http://x", cause: cause.message },
    });
    expect(errorCodeOf(RpcError.from(obj))).toBe("upstream");
    expect(toErrorObject(new HomedError("invalid_params", "x")).code).toBe(RpcErrorCode.InvalidParams);
    expect(errorCodeOf(new RpcError(RpcErrorCode.InvalidParams, "bad"))).toBe("invalid_params");
    // A transport failure carries no code: the caller names it (the web plugin answers 502).
    expect(errorCodeOf(new RpcError(RpcErrorCode.Timeout, "timed out"))).toBeUndefined();
    expect(errorCodeOf(new RpcError(RpcErrorCode.Application, "x", { code: "bogus" }))).toBeUndefined();
    expect(errorCodeOf(new Error("bug"))).toBeUndefined();
  });
});
