/**
 * Code mode on the server: its two tools listed and called, every result within the cap. The
 * mode's module (and with it TypeScript and QuickJS) is loaded on the server's first request.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { withinCap, type ToolResult } from "../result-size.js";
import type { HostContext } from "./host.js";
import type { ToolFilter } from "../tool-list.js";
import type { CodeModeLimits } from "./limits.js";
import { loadOnce } from "#shared";

export function serveCodeMode(
  server: Server,
  context: Omit<HostContext, "maxCalls" | "signal"> & { filter: ToolFilter },
  limits: Required<CodeModeLimits>,
  maxBytes: number,
): Server {
  type Mode = Pick<typeof import("./mode.js"), "codeModeListing" | "codeModeServer">;
  const loaded = loadOnce(
    (): Promise<Mode> =>
      import("./mode.js").then(({ codeModeListing, codeModeServer }) => ({ codeModeListing, codeModeServer })),
  );
  // One code-mode server (one gate of executes at once) however many requests arrive while it loads.
  const code = loadOnce(async () => (await loaded()).codeModeServer(context, limits, maxBytes));
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: (await loaded()).codeModeListing(limits, context.filter.allowWrites === true),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<ToolResult> => {
    return withinCap(await (await code()).call(request.params.name, request.params.arguments, extra.signal), maxBytes);
  });
  return server;
}
