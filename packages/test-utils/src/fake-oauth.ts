// A fake OAuth 2.1 authorization server as the MCP authorization spec wants one: metadata (RFC
// 8414), dynamic client registration (RFC 7591) unless told to refuse it, clients registered
// beforehand (with or without a secret), an authorization endpoint that approves at once (the test
// plays the browser: a GET of the authorization URL redirects to the client's callback), and a
// token endpoint that checks PKCE (S256), the client's secret and the resource indicator (RFC 8707).
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type FakeOAuthOptions = {
  /** False: no registration endpoint, as servers that only know clients registered by hand. Default true. */
  dynamicRegistration?: boolean;
  /** The life of an access token, said as its `expires_in` and kept to. Default 3600. */
  accessTokenSeconds?: number;
  /** False: a refresh gives no new refresh token, and the one used stays good. Default true (each
   * refresh token is good once, and the refresh gives the next). */
  rotateRefreshTokens?: boolean;
  /** How long a refresh takes to be answered (its token is spent at once). Default 0. */
  refreshDelayMs?: number;
  /** False: a refresh's answer has no `expires_in`, though its token lasts `accessTokenSeconds`
   * all the same (the sign-in's answer still says it). Default true. */
  refreshSaysExpiry?: boolean;
};

/** A client registered beforehand, as on a provider's developer portal. */
export type FakeOAuthClient = { clientId: string; clientSecret?: string; redirectUris: string[] };

export type FakeOAuthServer = {
  /** The issuer, which is also the base of every endpoint. */
  issuer: string;
  /** Whether `authorization` (a request's header) carries a live access token for `resource`. */
  accepts(authorization: string | undefined, resource: string): boolean;
  /** Ends the life of every access token issued so far: the next use needs a refresh. */
  expireAccessTokens(): void;
  /** Forgets every token, refresh tokens too: the next use needs a new sign-in. */
  revokeAll(): void;
  addClient(client: FakeOAuthClient): void;
  /** What happened, for assertions; `refusals` counts the requests `accepts` turned away, and
   * `refusedRefreshes` the refreshes sent with a refresh token spent, revoked or never issued. */
  readonly counts: { registrations: number; authorizations: number; codeExchanges: number; refreshes: number; refusals: number; refusedRefreshes: number };
  close(): Promise<void>;
};

type Grant = { clientId: string; resource: string };

export async function startFakeOAuthServer(options: FakeOAuthOptions = {}): Promise<FakeOAuthServer> {
  const clients = new Map<string, { redirectUris: string[]; secret?: string }>();
  const codes = new Map<string, Grant & { challenge: string; redirectUri: string }>();
  const accessTokens = new Map<string, Grant & { live: boolean; expiresAt: number }>();
  const refreshTokens = new Map<string, Grant>();
  const counts = { registrations: 0, authorizations: 0, codeExchanges: 0, refreshes: 0, refusals: 0, refusedRefreshes: 0 };
  const token = () => randomBytes(16).toString("hex");
  const lifetime = options.accessTokenSeconds ?? 3600;
  const registration = options.dynamicRegistration !== false;
  let issuer = "";

  /** New tokens for `grant`; `refreshed` is the refresh token used, undefined for a sign-in. */
  const issue = (grant: Grant, refreshed?: string) => {
    const access = `at-${token()}`;
    accessTokens.set(access, { ...grant, live: true, expiresAt: Date.now() + lifetime * 1000 });
    const expiry = refreshed !== undefined && options.refreshSaysExpiry === false ? {} : { expires_in: lifetime };
    if (refreshed !== undefined && options.rotateRefreshTokens === false) return { access_token: access, token_type: "Bearer", ...expiry };
    const next = `rt-${token()}`;
    refreshTokens.set(next, grant);
    return { access_token: access, token_type: "Bearer", ...expiry, refresh_token: next };
  };

  /** The client a token request authenticates as (client_secret_basic, client_secret_post or, for
   * a client without a secret, its client_id alone); undefined when the secret is wrong or missing. */
  const tokenClient = (req: IncomingMessage, form: URLSearchParams): string | undefined => {
    const basic = /^Basic (\S+)$/i.exec(req.headers.authorization ?? "");
    const [id, secret] = basic ? Buffer.from(basic[1], "base64").toString("utf8").split(":").map(decodeURIComponent) : [form.get("client_id") ?? "", form.get("client_secret") ?? undefined];
    const client = clients.get(id);
    if (!client || (client.secret !== undefined && client.secret !== secret)) return undefined;
    return id;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", issuer);
    if (req.method === "GET" && url.pathname === "/.well-known/oauth-authorization-server") {
      return json(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        ...(registration && { registration_endpoint: `${issuer}/register` }),
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none", "client_secret_basic", "client_secret_post"],
      });
    }
    if (req.method === "POST" && url.pathname === "/register" && registration) {
      const body = JSON.parse(await readBody(req)) as { redirect_uris?: string[] };
      if (!Array.isArray(body.redirect_uris) || body.redirect_uris.length === 0) return json(res, 400, { error: "invalid_redirect_uri" });
      const clientId = `client-${token()}`;
      clients.set(clientId, { redirectUris: body.redirect_uris });
      counts.registrations++;
      return json(res, 201, { ...body, client_id: clientId, client_id_issued_at: Math.floor(Date.now() / 1000), token_endpoint_auth_method: "none" });
    }
    if (req.method === "GET" && url.pathname === "/authorize") {
      const q = url.searchParams;
      const client = clients.get(q.get("client_id") ?? "");
      const redirectUri = q.get("redirect_uri") ?? "";
      if (!client || !client.redirectUris.includes(redirectUri)) return text(res, 400, "unknown client or redirect_uri");
      if (q.get("response_type") !== "code" || q.get("code_challenge_method") !== "S256" || !q.get("code_challenge")) return text(res, 400, "PKCE with S256 is required");
      const code = `code-${token()}`;
      codes.set(code, { clientId: q.get("client_id") ?? "", resource: q.get("resource") ?? "", challenge: q.get("code_challenge") ?? "", redirectUri });
      counts.authorizations++;
      const back = new URL(redirectUri);
      back.searchParams.set("code", code);
      if (q.has("state")) back.searchParams.set("state", q.get("state") ?? "");
      res.writeHead(302, { location: back.href }).end();
      return;
    }
    if (req.method === "POST" && url.pathname === "/token") {
      const form = new URLSearchParams(await readBody(req));
      const grantType = form.get("grant_type");
      const clientId = tokenClient(req, form);
      if (!clientId) return json(res, 401, { error: "invalid_client", error_description: "unknown client, or its secret is wrong or missing" });
      if (grantType === "authorization_code") {
        const code = codes.get(form.get("code") ?? "");
        codes.delete(form.get("code") ?? "");
        const verifier = form.get("code_verifier") ?? "";
        if (!code || code.clientId !== clientId || code.redirectUri !== form.get("redirect_uri")) return json(res, 400, { error: "invalid_grant" });
        if (createHash("sha256").update(verifier).digest("base64url") !== code.challenge) return json(res, 400, { error: "invalid_grant", error_description: "PKCE verifier does not match" });
        if ((form.get("resource") ?? "") !== code.resource) return json(res, 400, { error: "invalid_target" });
        counts.codeExchanges++;
        return json(res, 200, issue({ clientId: code.clientId, resource: code.resource }));
      }
      if (grantType === "refresh_token") {
        const refresh = form.get("refresh_token") ?? "";
        const grant = refreshTokens.get(refresh);
        if (!grant || grant.clientId !== clientId) {
          counts.refusedRefreshes++;
          return json(res, 400, { error: "invalid_grant" });
        }
        counts.refreshes++;
        if (options.rotateRefreshTokens !== false) refreshTokens.delete(refresh);
        const issued = issue(grant, refresh);
        if (options.refreshDelayMs) await new Promise((resolve) => setTimeout(resolve, options.refreshDelayMs));
        return json(res, 200, issued);
      }
      return json(res, 400, { error: "unsupported_grant_type" });
    }
    text(res, 404, `no route for ${req.method} ${url.pathname}`);
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) text(res, 500, error instanceof Error ? error.message : String(error));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;

  return {
    issuer,
    counts,
    accepts(authorization, resource) {
      const match = /^Bearer (\S+)$/i.exec(authorization ?? "");
      const grant = match ? accessTokens.get(match[1]) : undefined;
      const ok = grant !== undefined && grant.live && grant.expiresAt > Date.now() && (grant.resource === "" || grant.resource === resource);
      if (!ok) counts.refusals++;
      return ok;
    },
    expireAccessTokens() {
      for (const grant of accessTokens.values()) grant.live = false;
    },
    revokeAll() {
      accessTokens.clear();
      refreshTokens.clear();
    },
    addClient(client) {
      clients.set(client.clientId, { redirectUris: client.redirectUris, ...(client.clientSecret !== undefined && { secret: client.clientSecret }) });
    },
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

function text(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { "content-type": "text/plain" }).end(body);
}
