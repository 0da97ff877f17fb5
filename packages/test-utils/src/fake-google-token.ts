// A Google OAuth token endpoint on 127.0.0.1, for Claude on Vertex AI without Google: it checks
// a service account's JWT (its RS256 signature against the key it made, its scope and audience) or
// an authorized user's refresh token, as Google does, and hands out numbered access tokens.
// `serviceAccountFile` and `authorizedUserFile` write credentials files whose token_uri is this.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { generateKeyPairSync, verify, type KeyObject } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

export type FakeGoogleTokenRequest = { form: Record<string, string>; claims?: Record<string, unknown>; header?: Record<string, unknown> };

export type FakeGoogleToken = {
  /** The token_uri of the credentials files. */
  tokenUri: string;
  /** Every token request, in arrival order, with the JWT's claims and header when it had one. */
  requests: FakeGoogleTokenRequest[];
  /** The access tokens handed out: "ya29.fake-1", "ya29.fake-2", … */
  issued: string[];
  /** Seconds each token is said to last. Default 3600. */
  expiresIn: number;
  /** Set to make the next requests fail with this status and OAuth error. */
  refuse?: { status: number; error: string; description: string };
  /** A service account key file in `dir` (type service_account, this server's token_uri). */
  serviceAccountFile(dir: string, email?: string): string;
  /** gcloud's user credentials in `dir` (type authorized_user, this server's token_uri). */
  authorizedUserFile(dir: string): string;
  close(): Promise<void>;
};

export const FAKE_REFRESH_TOKEN = "1//fake-refresh-token";
const SCOPE = "https://www.googleapis.com/auth/cloud-platform";

export async function startFakeGoogleToken(): Promise<FakeGoogleToken> {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  const tokenUri = `http://127.0.0.1:${port}/token`;

  const fake: FakeGoogleToken = {
    tokenUri,
    requests: [],
    issued: [],
    expiresIn: 3600,
    serviceAccountFile(dir, email = "harness-test@project.iam.gserviceaccount.com") {
      const file = join(dir, "service-account.json");
      const key = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
      writeFileSync(file, JSON.stringify({ type: "service_account", project_id: "p", private_key_id: "key-1", private_key: key, client_email: email, token_uri: tokenUri }));
      return file;
    },
    authorizedUserFile(dir) {
      const file = join(dir, "application_default_credentials.json");
      writeFileSync(file, JSON.stringify({ type: "authorized_user", client_id: "client.apps.googleusercontent.com", client_secret: "secret", refresh_token: FAKE_REFRESH_TOKEN, token_uri: tokenUri }));
      return file;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let text = "";
    for await (const chunk of req) text += chunk;
    const form = Object.fromEntries(new URLSearchParams(text));
    const recorded: FakeGoogleTokenRequest = { form };
    fake.requests.push(recorded);
    const refuse = (status: number, error: string, description: string) => send(res, status, { error, error_description: description });
    if (req.method !== "POST" || req.url !== "/token") return refuse(404, "not_found", `no route for ${req.method} ${req.url}`);
    if (!/^application\/x-www-form-urlencoded\b/.test(req.headers["content-type"] ?? "")) return refuse(400, "invalid_request", "the body must be form-encoded");
    if (fake.refuse) return refuse(fake.refuse.status, fake.refuse.error, fake.refuse.description);
    if (form.grant_type === "urn:ietf:params:oauth:grant-type:jwt-bearer") {
      const problem = checkJwt(form.assertion ?? "", publicKey, tokenUri, recorded);
      if (problem) return refuse(400, "invalid_grant", problem);
    } else if (form.grant_type === "refresh_token") {
      if (form.refresh_token !== FAKE_REFRESH_TOKEN || !form.client_id || !form.client_secret) return refuse(400, "invalid_grant", "Bad Request");
    } else {
      return refuse(400, "unsupported_grant_type", `Invalid grant_type: ${form.grant_type ?? ""}`);
    }
    const token = `ya29.fake-${fake.issued.length + 1}`;
    fake.issued.push(token);
    send(res, 200, { access_token: token, expires_in: fake.expiresIn, token_type: "Bearer" });
  }
  return fake;
}

/** What Google would refuse in a service account's assertion, or undefined. */
function checkJwt(jwt: string, publicKey: KeyObject, audience: string, recorded: FakeGoogleTokenRequest): string | undefined {
  const parts = jwt.split(".");
  if (parts.length !== 3) return "Invalid JWT: not three parts";
  try {
    recorded.header = JSON.parse(Buffer.from(parts[0], "base64url").toString());
    recorded.claims = JSON.parse(Buffer.from(parts[1], "base64url").toString());
  } catch {
    return "Invalid JWT: not JSON";
  }
  if (recorded.header?.alg !== "RS256") return "Invalid JWT: alg must be RS256";
  if (!verify("RSA-SHA256", Buffer.from(`${parts[0]}.${parts[1]}`), publicKey, Buffer.from(parts[2], "base64url"))) return "Invalid JWT Signature.";
  const claims = recorded.claims ?? {};
  if (claims.aud !== audience) return `Invalid JWT: aud must be ${audience}`;
  if (claims.scope !== SCOPE) return "Invalid JWT: scope";
  const now = Math.floor(Date.now() / 1000);
  if (typeof claims.iat !== "number" || typeof claims.exp !== "number" || claims.iat > now + 60 || claims.exp <= now || claims.exp - claims.iat > 3600) return "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.";
  if (typeof claims.iss !== "string" || !claims.iss.includes("@")) return "Invalid JWT: iss";
  return undefined;
}

function send(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
}
