/**
 * The kernel methods channel plugins call (src/protocol/channel.ts), composed from one group per
 * concern. Each group says which of its methods are reserved to built-in plugins (the web UI): an
 * installed third-party plugin may chat and follow its own turns, but not read or change the
 * person's memory, settings or model provider.
 */
import type { KernelServices } from "../kernel-services.ts";
import { builtinOnlyFor, type ChannelMethodGroup } from "./channel-group.ts";
import { chatMethods } from "./chat.ts";
import { contextMethods } from "./context.ts";
import { conversationMethods } from "./conversations.ts";
import { l3Methods } from "./l3.ts";
import { llmMethods } from "./llm.ts";
import { memoryMethods } from "./memory.ts";
import { sceneMethods } from "./scenes.ts";
import { settingsMethods } from "./settings.ts";

/** Every channel method a plugin may call; each handler is given the calling plugin's name. */
export function channelMethods(k: KernelServices): ChannelMethodGroup {
  const builtinOnly = builtinOnlyFor(k);
  return {
    ...chatMethods(k, builtinOnly),
    ...conversationMethods(k, builtinOnly),
    ...contextMethods(k),
    ...memoryMethods(k, builtinOnly),
    ...sceneMethods(k, builtinOnly),
    ...l3Methods(k, builtinOnly),
    ...settingsMethods(k, builtinOnly),
    ...llmMethods(k, builtinOnly),
  };
}
