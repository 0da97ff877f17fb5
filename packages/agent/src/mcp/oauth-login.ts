// Signing in to a remote MCP server (`harness mcp login`): the browser is sent to the server's
// authorization server, which sends it back with a code to a loopback listener here
// (http://localhost:<port>/callback, on the server's `oauth.callbackPort` when it has one, else on
// any free port); the code is exchanged for tokens, which are stored (oauth-store.ts) for runs to use.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import type { Env, McpRemoteServerConfig } from "./config.ts";
import { callbackUrl, StoredOAuthProvider } from "./oauth-provider.ts";
import { updateOAuthEntry } from "./oauth-store.ts";
import { remoteTransport, withCause } from "./remote-transport.ts";

/** How long the browser has to come back with a code. */
export const DEFAULT_SIGN_IN_TIMEOUT_MS = 5 * 60_000;

export type McpLoginOptions = {
  /** The sign-in file (mcpOAuthFile). */
  file: string;
  /** BROWSER, and the network variables of the requests (the proxies, the CA file, the client
   * certificate) unless `networkEnv` gives them. */
  env: Env;
  /** The network variables of the requests: the environment with the settings' `env` over it as
   * the harness takes it (harness-env.ts), which a repository's settings cannot route. */
  networkEnv?: Env;
  /** Told the authorization URL for the user to open. */
  onAuthorizationUrl(url: string): void;
  /** Tries to open a browser at the URL; by default the platform's opener, or $BROWSER. */
  openBrowser?(url: string): void;
  timeoutMs?: number;
  signal?: AbortSignal;
};

/** "signed-in" with the server's tool count once connected with the new tokens; "not-needed" when
 * the server let us in without a sign-in. Throws an Error saying what failed. */
export async function mcpLogin(config: McpRemoteServerConfig, options: McpLoginOptions): Promise<{ kind: "signed-in" | "not-needed"; toolCount: number }> {
  const server = { name: config.name, url: config.url };
  const client = config.oauth ?? {};
  const state = randomBytes(24).toString("base64url");
  const callback = await listenForCode(state, client.callbackPort);
  const timeout = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_SIGN_IN_TIMEOUT_MS);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  try {
    // A new sign-in replaces the old tokens, whether they still work or not.
    updateOAuthEntry(options.file, server, (entry) => entry && { ...entry, tokens: undefined, tokensSavedAt: undefined });
    const open = options.openBrowser ?? ((url: string) => openBrowser(url, options.env));
    const signIn = {
      redirectUrl: callback.redirectUrl,
      state,
      onAuthorizationUrl: (url: URL) => {
        options.onAuthorizationUrl(url.href);
        open(url.href);
      },
    };
    const transport = remoteTransport(config, options.networkEnv ?? options.env, new StoredOAuthProvider(options.file, server, { client, signIn }));
    const first = await tryConnect(transport);
    if (first.connected) return { kind: "not-needed", toolCount: first.toolCount };
    // As a run says a server it cannot reach: "fetch failed" with its reason (refused, DNS, TLS…).
    if (!(first.error instanceof UnauthorizedError)) throw withRegistrationHint(first.error instanceof Error ? new Error(withCause(first.error)) : first.error, client.clientId !== undefined);
    const code = await callback.code(signal, options.timeoutMs ?? DEFAULT_SIGN_IN_TIMEOUT_MS);
    await transport.finishAuth(code);
    const check = await tryConnect(remoteTransport(config, options.networkEnv ?? options.env, new StoredOAuthProvider(options.file, server, { client })));
    if (!check.connected) throw new Error(`signed in, but the server still refused the connection: ${(check.error as Error).message}`);
    return { kind: "signed-in", toolCount: check.toolCount };
  } finally {
    callback.close();
  }
}

/** The SDK's words for an authorization server without dynamic registration, with what to do. */
function withRegistrationHint(error: unknown, hasClient: boolean): unknown {
  if (hasClient || !(error instanceof Error) || !/does not support dynamic client registration/.test(error.message)) return error;
  return new Error(
    `${error.message}: register a client with it (its redirect URI http://localhost:PORT/callback), then give it to the server's entry: harness mcp add --transport http --client-id ID [--client-secret] --callback-port PORT NAME URL, or "oauth": {"clientId": "ID", "callbackPort": PORT}`,
  );
}

async function tryConnect(transport: ReturnType<typeof remoteTransport>): Promise<{ connected: true; toolCount: number } | { connected: false; error: unknown }> {
  const client = new Client({ name: "harness", version: "0.1.0" }, { capabilities: {} });
  try {
    await client.connect(transport);
    const toolCount = client.getServerCapabilities()?.tools ? (await client.listTools()).tools.length : 0;
    return { connected: true, toolCount };
  } catch (error) {
    return { connected: false, error };
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** A loopback listener for the authorization server's redirect, on `port` (any free one when
 * undefined). A request without the right `state` is answered 400 and otherwise ignored: it did
 * not come from this sign-in. */
async function listenForCode(state: string, port: number | undefined): Promise<{ redirectUrl: string; code(signal: AbortSignal, timeoutMs: number): Promise<string>; close(): void }> {
  let settle: { resolve(code: string): void; reject(error: Error): void } | undefined;
  const early: { code?: string; error?: Error } = {};
  const http: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname !== "/callback") return void res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    const page = (status: number, text: string) => res.writeHead(status, { "content-type": "text/html; charset=utf-8" }).end(`<!doctype html><title>Harness</title><p>${text}</p>`);
    if (url.searchParams.get("state") !== state) return page(400, "This sign-in link is not the one Harness is waiting for (its state does not match).");
    const error = url.searchParams.get("error");
    const code = url.searchParams.get("code");
    if (error) {
      const description = url.searchParams.get("error_description");
      page(400, "Sign-in failed. You may close this tab.");
      const failure = new Error(`the authorization server refused: ${error}${description ? ` (${description})` : ""}`);
      return settle ? settle.reject(failure) : void (early.error = failure);
    }
    if (!code) return page(400, "The authorization server sent no code.");
    page(200, "Signed in. You may close this tab and return to Harness.");
    if (settle) settle.resolve(code);
    else early.code = code;
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", (error: NodeJS.ErrnoException) => {
      if (port === undefined) return reject(error);
      const why = error.code === "EADDRINUSE" ? "another program is listening on it" : error.code === "EACCES" ? "this user may not listen on it" : error.message;
      reject(new Error(`cannot take the callback port ${port} (oauth.callbackPort): ${why}`));
    });
    http.listen(port ?? 0, "127.0.0.1", resolve);
  });
  return {
    redirectUrl: callbackUrl((http.address() as AddressInfo).port),
    code: (signal, timeoutMs) =>
      new Promise<string>((resolve, reject) => {
        if (early.code) return resolve(early.code);
        if (early.error) return reject(early.error);
        const onAbort = () => reject(new Error(signal.reason instanceof DOMException && signal.reason.name === "TimeoutError" ? `no answer from the browser within ${Math.round(timeoutMs / 1000)} s` : "the sign-in was cancelled"));
        if (signal.aborted) return onAbort();
        signal.addEventListener("abort", onAbort, { once: true });
        settle = {
          resolve: (code) => (signal.removeEventListener("abort", onAbort), resolve(code)),
          reject: (error) => (signal.removeEventListener("abort", onAbort), reject(error)),
        };
      }),
    close: () => {
      http.closeAllConnections();
      http.close();
    },
  };
}

/** Opens `url` in a browser when there is one to open: $BROWSER, else the platform's opener (on
 * Linux only with a display). Failing to is not an error: the URL has been printed. */
export function openBrowser(url: string, env: Env): void {
  const [command, ...args] = env.BROWSER
    ? [env.BROWSER, url]
    : process.platform === "darwin"
      ? ["open", url]
      : process.platform === "win32"
        ? ["cmd", "/c", "start", "", url]
        : env.DISPLAY || env.WAYLAND_DISPLAY
          ? ["xdg-open", url]
          : [];
  if (!command || command === "none") return;
  try {
    const child = spawn(command, args, { detached: true, stdio: "ignore" });
    child.on("error", () => {});
    child.unref();
  } catch {
    // Printed already; nothing else to do.
  }
}
