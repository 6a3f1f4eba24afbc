/**
 * The link probe of bench/ipc-tail.ts: a Bun process that maps the segment on fd 3 and answers
 * every ping event (0x201) with a pong (0x202) through ShmLink and its doorbell on fd 4 — the
 * ring and the doorbell as a plugin has them, without the plugin SDK, its RPC or the supervisor.
 */
import { SharedSegment } from "../../src/ipc/shared-memory.ts";
import { readLayout } from "../../src/ipc/segment-layout.ts";
import { ShmLink } from "../../src/ipc/shm-link.ts";

const segment = SharedSegment.fromFd(3);
const pong = new Uint8Array(16);
const link: ShmLink = new ShmLink({
  buffer: segment.buffer,
  layout: readLayout(segment.buffer),
  role: "plugin",
  doorbellFd: 4,
  onEvent: (type, payload) => {
    if (type !== 0x201) return;
    pong.set(payload.subarray(0, 16));
    link.tryEmit(0x202, pong);
  },
});
await link.run();
