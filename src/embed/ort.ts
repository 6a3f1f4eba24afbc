/**
 * onnxruntime-node, loaded on first use. Its addon needs libonnxruntime.so.1, which the
 * compiled binary embeds (the arm64 build swaps in the aarch64 library, scripts/build.ts): it is
 * loaded into the process first, so the addon's dependency resolves to it.
 */
import ortLibrary from "../../node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1" with {
  type: "file",
};
import { preloadLibrary } from "../ipc/native-lib.ts";

type Ort = typeof import("onnxruntime-node");
let ort: Ort | null = null;

export function onnxRuntime(): Ort {
  if (!ort) {
    preloadLibrary(ortLibrary, "OrtGetApiBase");
    ort = require("onnxruntime-node") as Ort;
  }
  return ort;
}
