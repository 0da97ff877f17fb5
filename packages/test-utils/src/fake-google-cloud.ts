// Google's other token sources on 127.0.0.1, for Application Default Credentials beyond a key file:
// a metadata server (GCE, GKE, Cloud Run), a subject-token URL (workload identity federation), the
// STS token exchange and IAM Credentials' generateAccessToken. Each checks what Google checks (the
// Metadata-Flavor header, the grant and its fields, a bearer token it or a given source issued) and
// hands out numbered tokens: "ya29.metadata-1", "ya29.sts-1", "ya29.impersonated-1", …
// `metadataHost` is what GCE_METADATA_HOST takes; the URLs go in credentials files.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

export type FakeGoogleCloudRequest = { method: string; path: string; headers: IncomingMessage["headers"]; form?: Record<string, string>; json?: Record<string, unknown> };

export type FakeGoogleCloud = {
  /** host:port, for GCE_METADATA_HOST. */
  metadataHost: string;
  /** URL-sourced subject tokens: GET answers `subjectToken` (as {"id_token": …} under ?format=json). */
  subjectTokenUrl: string;
  /** The STS token_url of external accounts. */
  stsUrl: string;
  /** The service_account_impersonation_url for `email`. */
  impersonationUrl(email: string): string;
  /** The subject token the STS accepts, and the subject-token URL answers with. */
  subjectToken: string;
  /** Every request, in arrival order. */
  requests: FakeGoogleCloudRequest[];
  /** Seconds each token is said to last. Default 3600. */
  expiresIn: number;
  /** Set to make the next requests of a route fail with this status and body. */
  refuse?: { route: "metadata" | "sts" | "iam"; status: number; body: unknown };
  close(): Promise<void>;
};

const EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";

export async function startFakeGoogleCloud(): Promise<FakeGoogleCloud> {
  const server = createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const host = `127.0.0.1:${(server.address() as { port: number }).port}`;
  const counts = { metadata: 0, sts: 0, iam: 0 };
  const fake: FakeGoogleCloud = {
    metadataHost: host,
    subjectTokenUrl: `http://${host}/subject-token`,
    stsUrl: `http://${host}/v1/token`,
    impersonationUrl: (email) => `http://${host}/v1/projects/-/serviceAccounts/${email}:generateAccessToken`,
    subjectToken: "eyJ.fake-subject.token",
    requests: [],
    expiresIn: 3600,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let text = "";
    for await (const chunk of req) text += chunk;
    const url = new URL(req.url ?? "/", `http://${host}`);
    const recorded: FakeGoogleCloudRequest = { method: req.method ?? "", path: url.pathname, headers: req.headers };
    fake.requests.push(recorded);
    const route = url.pathname === "/computeMetadata/v1/instance/service-accounts/default/token" ? "metadata" : url.pathname === "/v1/token" ? "sts" : url.pathname.endsWith(":generateAccessToken") ? "iam" : url.pathname;
    if (fake.refuse?.route === route) return send(res, fake.refuse.status, fake.refuse.body);
    if (route === "/subject-token") {
      if (url.searchParams.get("format") === "json") return send(res, 200, { id_token: fake.subjectToken });
      return void res.writeHead(200, { "content-type": "text/plain" }).end(fake.subjectToken);
    }
    if (route === "metadata") {
      if (req.method !== "GET" || req.headers["metadata-flavor"] !== "Google") return send(res, 403, "Missing Metadata-Flavor:Google header.");
      return send(res, 200, { access_token: `ya29.metadata-${++counts.metadata}`, expires_in: fake.expiresIn, token_type: "Bearer" });
    }
    if (route === "sts") {
      const form = (recorded.form = Object.fromEntries(new URLSearchParams(text)));
      if (req.method !== "POST" || !/^application\/x-www-form-urlencoded\b/.test(req.headers["content-type"] ?? "")) return send(res, 400, { error: "invalid_request", error_description: "the body must be form-encoded" });
      if (form.grant_type !== EXCHANGE) return send(res, 400, { error: "unsupported_grant_type", error_description: `Invalid grant_type: ${form.grant_type ?? ""}` });
      if (!form.audience || !form.subject_token_type || form.requested_token_type !== "urn:ietf:params:oauth:token-type:access_token") return send(res, 400, { error: "invalid_request", error_description: "missing audience, subject_token_type or requested_token_type" });
      if (form.subject_token !== fake.subjectToken) return send(res, 400, { error: "invalid_grant", error_description: "The given subject token is invalid." });
      return send(res, 200, { access_token: `ya29.sts-${++counts.sts}`, issued_token_type: "urn:ietf:params:oauth:token-type:access_token", token_type: "Bearer", expires_in: fake.expiresIn });
    }
    if (route === "iam") {
      try {
        recorded.json = JSON.parse(text);
      } catch {
        return send(res, 400, { error: { code: 400, message: "Invalid JSON payload received.", status: "INVALID_ARGUMENT" } });
      }
      if (req.method !== "POST" || !/^Bearer ya29\./.test(req.headers.authorization ?? "")) return send(res, 401, { error: { code: 401, message: "Request had invalid authentication credentials.", status: "UNAUTHENTICATED" } });
      const expireTime = new Date(Date.now() + fake.expiresIn * 1000).toISOString().replace(/\.\d+Z$/, "Z");
      return send(res, 200, { accessToken: `ya29.impersonated-${++counts.iam}`, expireTime });
    }
    send(res, 404, { error: "not_found", error_description: `no route for ${req.method} ${url.pathname}` });
  }
  return fake;
}

function send(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { "content-type": "application/json", "metadata-flavor": "Google" }).end(JSON.stringify(value));
}
