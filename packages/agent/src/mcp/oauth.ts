// OAuth sign-in of remote MCP servers, for the `harness mcp login|logout` commands and hosts that
// hide the sign-in file from their sessions.
export { forgetOAuthServer, mcpOAuthFile, MCP_OAUTH_FILE_NAME, readOAuthEntry, removeOAuthEntries, saveClientSecret } from "./oauth-store.ts";
export { mcpLogin, openBrowser, DEFAULT_SIGN_IN_TIMEOUT_MS } from "./oauth-login.ts";
export type { McpLoginOptions } from "./oauth-login.ts";
