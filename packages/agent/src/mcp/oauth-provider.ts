// The MCP SDK's OAuthClientProvider over the sign-in file (oauth-store.ts). The SDK's auth() does
// discovery (RFC 9728, RFC 8414), registration (RFC 7591), PKCE, resource indicators and refresh;
// this keeps what it saves. A run's provider never asks anyone: where a sign-in would be needed it
// throws McpSignInNeeded, and the run goes on without that server.
import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { readOAuthEntry, updateOAuthEntry, type McpOAuthEntry, type McpOAuthServer } from "./oauth-store.ts";

/** Thrown by a run's provider where the SDK would start an interactive sign-in. */
export class McpSignInNeeded extends Error {
  constructor(server: string) {
    super(`needs sign-in: run "harness mcp login ${server}"`);
    this.name = "McpSignInNeeded";
  }
}

/** How a sign-in in progress talks to the user: the loopback redirect URI, the state it checks, and
 * where the authorization URL goes. */
export type McpSignIn = { redirectUrl: string; state: string; onAuthorizationUrl(url: URL): void };

/** The redirect URI said to the SDK by a run's provider, which never sends anyone to it. */
const RUN_REDIRECT_URL = "http://localhost/callback";

export class StoredOAuthProvider implements OAuthClientProvider {
  readonly #file: string;
  readonly #server: McpOAuthServer;
  readonly #signIn: McpSignIn | undefined;
  #verifier: string | undefined;

  /** Without `signIn`, a run's provider: stored tokens only, refreshed as the SDK finds them expired. */
  constructor(file: string, server: McpOAuthServer, signIn?: McpSignIn) {
    this.#file = file;
    this.#server = server;
    this.#signIn = signIn;
  }

  get redirectUrl(): string {
    return this.#signIn?.redirectUrl ?? RUN_REDIRECT_URL;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "Harness",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  state(): string {
    return this.#signIn?.state ?? "";
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const info = this.#entry()?.clientInformation;
    if (!this.#signIn) {
      if (!info) throw new McpSignInNeeded(this.#server.name);
      return info;
    }
    // A registration made for another loopback port would be refused at the authorization
    // endpoint: the sign-in registers again.
    const uris = (info as { redirect_uris?: unknown } | undefined)?.redirect_uris;
    return Array.isArray(uris) && !uris.includes(this.#signIn.redirectUrl) ? undefined : info;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.#update((entry) => ({ ...entry, clientInformation: info }));
  }

  tokens(): OAuthTokens | undefined {
    return this.#entry()?.tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.#update((entry) => ({ ...entry, tokens, tokensSavedAt: Date.now() }));
  }

  redirectToAuthorization(url: URL): void {
    if (!this.#signIn) throw new McpSignInNeeded(this.#server.name);
    this.#signIn.onAuthorizationUrl(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    if (this.#verifier === undefined) throw new Error("no sign-in is under way (no PKCE code verifier)");
    return this.#verifier;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#entry()?.discoveryState;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    // A run keeps what it found only for a server signed in already; a sign-in keeps it always.
    if (!this.#signIn && !this.#entry()) return;
    this.#update((entry) => ({ ...entry, discoveryState: state }));
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "verifier") {
      this.#verifier = undefined;
      return;
    }
    updateOAuthEntry(this.#file, this.#server, (entry) => {
      if (!entry || scope === "all") return undefined;
      const { clientInformation, tokens, tokensSavedAt, discoveryState, ...rest } = entry;
      if (scope === "client") return { ...rest, tokens, tokensSavedAt, discoveryState };
      if (scope === "tokens") return { ...rest, clientInformation, discoveryState };
      return { ...rest, clientInformation, tokens, tokensSavedAt };
    });
  }

  #entry(): McpOAuthEntry | undefined {
    return readOAuthEntry(this.#file, this.#server);
  }

  #update(change: (entry: McpOAuthEntry) => McpOAuthEntry): void {
    updateOAuthEntry(this.#file, this.#server, (entry) => change(entry ?? { serverName: this.#server.name, serverUrl: this.#server.url }));
  }
}
