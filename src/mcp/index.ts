/**
 * `store-admin-sdk/mcp`: the Model Context Protocol server of the Store Admin API, for hosting
 * it yourself (over Streamable HTTP, say); `npx store-admin-sdk mcp` serves it over stdio.
 * Needs the optional peer dependency `@modelcontextprotocol/sdk`. See docs/mcp.md.
 */
export {
  createStoreAdminMcpServer,
  DEFAULT_MAX_RESULT_BYTES,
  type McpMode,
  type StoreAdminMcpServerOptions,
} from "./server.js";
export { VALIDATE_CALL, type ToolFilter } from "./tool-list.js";
export { MAX_UPLOAD_BYTES, type McpToolRow } from "../../generated/mcp-tools.js";
export type { CodeModeLimits } from "./code/limits.js";
