/**
 * The agent card at /.well-known/agent-card.json. Its endpoint URL is built from the request's
 * Host header, which the security middleware has already checked (one well-formed host; on a
 * loopback listen only loopback names and [web] allowed_hosts), so a card never names a host the
 * listener would refuse. It is an A2A 1.0 card (supportedInterfaces: the same JSON-RPC endpoint
 * for 1.0 and 0.3) that also carries the 0.3 fields (url, preferredTransport, protocolVersion) for
 * older peers. The security scheme is written in the caller's dialect (A2A-Version header: 1.x
 * gets 1.0's ProtoJSON shape; none, as 0.3 clients send, gets 0.3's `type: "http"` shape).
 */
import type { Context } from "hono";
import type { A2aChannelConfig } from "../a2a/config.ts";

/** Where the JSON-RPC endpoint is mounted. */
export const A2A_PATH = "/a2a";
export const CARD_PATH = "/.well-known/agent-card.json";

/** The scheme and host a client reached us by: X-Forwarded-Proto from a TLS proxy, else the request's. */
export function baseUrl(c: Context): string {
  const proto = (c.req.header("x-forwarded-proto") ?? "").split(",")[0]?.trim().toLowerCase();
  const scheme = proto === "https" || proto === "http" ? proto : new URL(c.req.url).protocol.replace(":", "");
  return `${scheme}://${c.req.header("host")}`;
}

/** The dialect a caller speaks by its A2A-Version header: 1.0 when it names 1.x. */
export function callerIsV1(c: Context): boolean {
  return /^\s*1(\.\d+)?\s*$/.test(c.req.header("a2a-version") ?? "");
}

export function agentCard(
  c: Context,
  o: { config: A2aChannelConfig; version: string; tokenRequired: boolean },
): Record<string, unknown> {
  const url = `${baseUrl(c)}${A2A_PATH}`;
  const v1 = callerIsV1(c);
  const security = o.tokenRequired
    ? v1
      ? {
          securitySchemes: {
            bearer: {
              httpAuthSecurityScheme: {
                scheme: "Bearer",
                description: "homed's login token, or a token [channels.a2a] peers gives this caller",
              },
            },
          },
          securityRequirements: [{ schemes: { bearer: { list: [] } } }],
        }
      : {
          securitySchemes: {
            bearer: {
              type: "http",
              scheme: "bearer",
              description: "homed's login token, or a token [channels.a2a] peers gives this caller",
            },
          },
          security: [{ bearer: [] }],
        }
    : {};
  return {
    name: o.config.name,
    description: o.config.description,
    supportedInterfaces: [
      { url, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
    ],
    version: o.version,
    capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: false },
    ...security,
    defaultInputModes: ["text/plain", "application/json"],
    defaultOutputModes: ["text/plain"],
    skills: [
      {
        id: "chat",
        name: "Chat",
        description:
          "Talk with the owner's personal agent: questions, tasks, follow-ups. Messages with the same contextId are one conversation.",
        tags: ["chat", "assistant"],
        examples: ["What is on my schedule today?", "Summarize what we discussed about the trip."],
        inputModes: ["text/plain", "application/json"],
        outputModes: ["text/plain"],
      },
    ],
    // A2A 0.3 fields, for peers that predate 1.0 (1.0 readers ignore them).
    protocolVersion: "0.3.0",
    url,
    preferredTransport: "JSONRPC",
  };
}
