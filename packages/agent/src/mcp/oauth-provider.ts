// The MCP SDK's OAuthClientProvider over the sign-in file (oauth-store.ts). The SDK's auth() does
// discovery (RFC 9728, RFC 8414), registration (RFC 7591), PKCE, resource indicators and refresh;
// this keeps what it saves. A run's provider never asks anyone: where a sign-in would be needed it
// throws McpSignInNeeded, and the run goes on without that server.
//
// Every refresh is this provider's, holding the server's refresh lock: tokens that say when they
// expire before the request that would send them expired, the others once a request is refused
// (401; refused-fetch.ts asks refreshRefused). The SDK's auth() would refresh by itself, outside
// the lock, with any refresh token tokens() gave it: tokens() gives none.
import { refreshAuthorization, selectResourceURL, type OAuthClientProvider, type OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import { InvalidClientError, InvalidGrantError, UnauthorizedClientError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpOAuthClientConfig } from "./config.ts";
import { withLock } from "../files/lock-file.ts";
import { readOAuthEntry, refreshLockFile, signedOut, updateOAuthEntryAsync, type McpOAuthEntry, type McpOAuthServer } from "./oauth-store.ts";

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

/** The most a token is refreshed ahead of its expiry; a short-lived one, a tenth of its life ahead. */
const REFRESH_MARGIN_MS = 60_000;

/** A refresh is one request to the authorization server; one held longer is stuck or its program
 * gone, and the next program refreshes (a refusal of a token it spent is handled in #refresh). */
const REFRESH_LOCK = { staleMs: 30_000, waitMs: 45_000 };

/** The redirect URI of a sign-in on a fixed loopback port, as the user registered it. */
export const callbackUrl = (port: number) => `http://localhost:${port}/callback`;

export type StoredOAuthOptions = {
  /** The server's `oauth` config: a client registered beforehand, a fixed callback port. */
  client?: McpOAuthClientConfig;
  /** A sign-in under way; without one, a run's provider: stored tokens only, refreshed as they expire. */
  signIn?: McpSignIn;
  /** How a refresh reaches the authorization server (the proxy of the servers' environment). */
  fetch?: FetchLike;
};

export class StoredOAuthProvider implements OAuthClientProvider {
  readonly #file: string;
  readonly #server: McpOAuthServer;
  readonly #client: McpOAuthClientConfig;
  readonly #signIn: McpSignIn | undefined;
  readonly #fetch: FetchLike | undefined;
  #verifier: string | undefined;
  /** The refresh under way: requests that find the token expiring, or refused, at once share it,
   * so that a refresh token good once is not spent twice. */
  #refreshing: Promise<OAuthTokens | undefined> | undefined;
  /** The tokens read last, to which a refusal the SDK reports refers (invalidateCredentials). */
  #read: OAuthTokens | undefined;

  constructor(file: string, server: McpOAuthServer, options: StoredOAuthOptions = {}) {
    this.#file = file;
    this.#server = server;
    this.#client = options.client ?? {};
    this.#signIn = options.signIn;
    this.#fetch = options.fetch;
  }

  get redirectUrl(): string {
    const port = this.#client.callbackPort;
    return this.#signIn?.redirectUrl ?? (port === undefined ? RUN_REDIRECT_URL : callbackUrl(port));
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
    const { clientId } = this.#client;
    if (clientId !== undefined) {
      const secret = this.#entry()?.clientSecret;
      return { client_id: clientId, ...(secret !== undefined && { client_secret: secret }) };
    }
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

  async saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    // A configured client is the config's; the SDK only offers it back stamped with its issuer.
    if (this.#client.clientId !== undefined) return;
    await this.#update((entry) => ({ ...entry, clientInformation: info }));
  }

  /** The stored tokens without their refresh token, refreshed first when they are about to
   * expire. A refresh the authorization server refuses ends the sign-in: a run's provider then
   * throws McpSignInNeeded. One that cannot be made (no answer, no stored endpoints) leaves the
   * tokens as they are, for the server's 401 to decide. */
  async tokens(): Promise<OAuthTokens | undefined> {
    const entry = this.#entry();
    const spent = entry?.tokens?.refresh_token;
    const tokens = !spent || !expiresSoon(entry) ? entry?.tokens : await this.#refreshOnce((now) => now.tokens?.refresh_token === spent && expiresSoon(now));
    this.#read = tokens;
    return tokens && withoutRefreshToken(tokens);
  }

  /** The tokens to send instead of the access token `refused`, which the server answered 401:
   * those another program (or a request of this one) stored since, or else refreshed. Undefined,
   * or the refused ones, when there are none to try. A refresh refused ends the sign-in as in
   * tokens(). */
  async refreshRefused(refused: string): Promise<OAuthTokens | undefined> {
    const tokens = await this.#refreshOnce((now) => now.tokens?.access_token === refused);
    this.#read = tokens;
    return tokens && withoutRefreshToken(tokens);
  }

  /** Refreshes holding the server's refresh lock, so that other programs (runs of other sessions,
   * `harness mcp login`) wait rather than send the same refresh token; read again under the lock,
   * tokens no longer `stale` (one of them refreshed meanwhile) are taken as they are. Requests of
   * this provider that need a refresh at once share one. */
  #refreshOnce(stale: (entry: McpOAuthEntry) => boolean): Promise<OAuthTokens | undefined> {
    this.#refreshing ??= withLock(refreshLockFile(this.#file, this.#server), REFRESH_LOCK, async () => {
      const entry = this.#entry();
      if (!entry?.tokens?.refresh_token || !stale(entry)) return entry?.tokens;
      return this.#refresh(entry);
    }).finally(() => (this.#refreshing = undefined));
    return this.#refreshing;
  }

  async #refresh(entry: McpOAuthEntry): Promise<OAuthTokens | undefined> {
    const discovery = entry.discoveryState;
    const refreshToken = entry.tokens?.refresh_token;
    if (!discovery?.authorizationServerMetadata || !refreshToken) return entry.tokens;
    const clientInformation = this.clientInformation();
    if (!clientInformation) return entry.tokens;
    const metadata = discovery.resourceMetadata;
    // The resource indicator as the SDK's own refresh sends it: the metadata's, verbatim.
    const selected = await selectResourceURL(this.#server.url, this, metadata);
    const resource = selected && metadata ? metadata.resource : selected;
    try {
      const tokens = await refreshAuthorization(discovery.authorizationServerUrl, {
        metadata: discovery.authorizationServerMetadata,
        clientInformation,
        refreshToken,
        ...(resource && { resource }),
        ...(this.#fetch && { fetchFn: this.#fetch }),
      });
      const saved = { ...tokens, issuer: discovery.authorizationServerUrl };
      // Written over the tokens refreshed, or where another program's refused refresh of them
      // dropped them (the sign-in's endpoints are still there); a sign-out meanwhile holds.
      await updateOAuthEntryAsync(this.#file, this.#server, (now) =>
        now && (now.tokens ? now.tokens.refresh_token === refreshToken : now.discoveryState !== undefined) ? { ...now, tokens: saved, tokensSavedAt: Date.now() } : now,
      );
      return this.#entry()?.tokens;
    } catch (error) {
      const refused = error instanceof InvalidClientError || error instanceof UnauthorizedClientError ? "all" : error instanceof InvalidGrantError ? "tokens" : undefined;
      if (!refused) return entry.tokens;
      // Another program (a run of another session) refreshed first, spending the refresh token
      // this one sent: its tokens are good, and the sign-in with them.
      const now = this.#entry()?.tokens;
      if (now?.refresh_token !== undefined && now.refresh_token !== refreshToken) return now;
      await this.#invalidate(refused, entry.tokens);
      if (!this.#signIn) throw new McpSignInNeeded(this.#server.name);
      return undefined;
    }
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.#update((entry) => ({ ...entry, tokens, tokensSavedAt: Date.now() }));
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

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    // A run keeps what it found only for a server signed in already; a sign-in keeps it always.
    if (!this.#signIn && !this.#entry()) return;
    await this.#update((entry) => ({ ...entry, discoveryState: state }));
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    if (scope === "verifier") {
      this.#verifier = undefined;
      return;
    }
    await this.#invalidate(scope, this.#read);
  }

  /** Drops what `scope` names after `refused` tokens were refused, unless other tokens were stored
   * since (another program refreshed them or signed in again): those are good, and what goes with
   * them stays too. */
  async #invalidate(scope: "all" | "client" | "tokens" | "discovery", refused: OAuthTokens | undefined): Promise<void> {
    await updateOAuthEntryAsync(this.#file, this.#server, (entry) => {
      if (!entry) return undefined;
      if (refused && entry.tokens && (entry.tokens.access_token !== refused.access_token || entry.tokens.refresh_token !== refused.refresh_token)) return entry;
      if (scope === "all") return signedOut(entry);
      const { clientInformation, tokens, tokensSavedAt, discoveryState, ...rest } = entry;
      if (scope === "client") return { ...rest, tokens, tokensSavedAt, discoveryState };
      if (scope === "tokens") return { ...rest, clientInformation, discoveryState };
      return { ...rest, clientInformation, tokens, tokensSavedAt };
    });
  }

  #entry(): McpOAuthEntry | undefined {
    return readOAuthEntry(this.#file, this.#server);
  }

  /** Writes waiting for the file's lock without blocking: a runner serves other sessions meanwhile. */
  #update(change: (entry: McpOAuthEntry) => McpOAuthEntry): Promise<void> {
    return updateOAuthEntryAsync(this.#file, this.#server, (entry) => change(entry ?? { serverName: this.#server.name, serverUrl: this.#server.url }));
  }
}

function withoutRefreshToken({ refresh_token: _, ...tokens }: OAuthTokens): OAuthTokens {
  return tokens;
}

/** Whether `entry`'s access token expires within the refresh margin; one that does not say when
 * it expires is used until refused. */
function expiresSoon(entry: McpOAuthEntry): boolean {
  const lifetime = (entry.tokens?.expires_in ?? NaN) * 1000;
  if (!Number.isFinite(lifetime) || entry.tokensSavedAt === undefined) return false;
  return Date.now() >= entry.tokensSavedAt + lifetime - Math.min(REFRESH_MARGIN_MS, lifetime / 10);
}
