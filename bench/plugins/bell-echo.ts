/**
 * The Bun floor of ipc.notify (bench/ipc.ts): a Bun process that answers every doorbell on fd 3
 * with one bell back, through the same Doorbell class the plugin link uses — Bun's event loop
 * waking for one byte, with no ring, no segment and no plugin SDK.
 */
import { Doorbell } from "../../src/ipc/doorbell.ts";

const bell = new Doorbell(3);
await bell.listen(() => bell.ring());
