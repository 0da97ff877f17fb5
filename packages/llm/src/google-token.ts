// Google access tokens for Vertex AI from Application Default Credentials: the key file named by
// GOOGLE_APPLICATION_CREDENTIALS, else the one `gcloud auth application-default login` writes.
// A service account signs a JWT (RS256) and trades it for a token; gcloud's user credentials trade
// their refresh token. A token is kept, and handed out while it has the life left its caller asks
// for (a minute by default).
import { sign } from "node:crypto";
import { readFile } from "node:fs/promises";
import { leadingText } from "./leading-text.ts";
import { isHeaderToken, NOT_A_HEADER_TOKEN } from "./header-token.ts";
import { credentialsFile } from "./vertex-settings.ts";

type Env = Readonly<Record<string, string | undefined>>;

export const CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform";
const DEFAULT_TOKEN_URI = "https://oauth2.googleapis.com/token";
/** By default, a token is asked for again this long before it expires. */
const EXPIRY_MARGIN_MS = 60_000;
/** A token reply is a few hundred bytes: a longer one is not read to its end. */
const MAX_REPLY_BYTES = 256 * 1024;

/** A Google credential that gives no token. `retryable`: the token server could not be reached or
 * failed on its side; anything else (a bad file, a refused grant) fails again the same way. */
export class GoogleAuthError extends Error {
  readonly retryable: boolean;
  constructor(message: string, retryable = false) {
    super(message);
    this.name = "GoogleAuthError";
    this.retryable = retryable;
  }
}

type Grant = { tokenUri: string; form: () => Record<string, string> };
type Kept = { token: string; expires: number };

/** Tokens by credentials file: every provider of a process shares one. */
const tokens = new Map<string, Promise<Kept>>();

/** A token for the credentials `env` names, with at least `leftMs` of life left; rejects with a
 * GoogleAuthError. `now` says when a kept token expires (a JWT is always signed with the real time). */
export async function googleAccessToken(env: Env, now: () => number = Date.now, leftMs = EXPIRY_MARGIN_MS): Promise<string> {
  const file = credentialsFile(env);
  const kept = tokens.get(file.path);
  if (kept) {
    const held = await kept.catch(() => undefined);
    if (held && held.expires - leftMs > now()) return held.token;
    if (tokens.get(file.path) !== kept) return googleAccessToken(env, now, leftMs);
  }
  const asked = fetchToken(file, now);
  tokens.set(file.path, asked);
  // A failure is not kept: the next request asks again (the file may have been mended).
  asked.catch(() => {
    if (tokens.get(file.path) === asked) tokens.delete(file.path);
  });
  return (await asked).token;
}

async function fetchToken(file: { path: string; named: string }, now: () => number): Promise<Kept> {
  const grant = grantOf(await readCredentials(file), file.named);
  let response: Response;
  try {
    response = await fetch(grant.tokenUri, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(grant.form()).toString(),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
    throw new GoogleAuthError(`could not reach ${grant.tokenUri} for a Google access token: ${cause}`, true);
  }
  let read: { text: string; more: boolean };
  try {
    read = await leadingText(response, MAX_REPLY_BYTES);
  } catch (error) {
    throw new GoogleAuthError(`the answer of ${grant.tokenUri} for a Google access token broke off: ${(error as Error).message}`, true);
  }
  if (read.more) throw new GoogleAuthError(`${grant.tokenUri} answered with more than ${MAX_REPLY_BYTES / 1024} KiB, which is no token reply`);
  const text = read.text;
  let body: { access_token?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown } = {};
  try {
    body = JSON.parse(text);
  } catch {
    // Said below.
  }
  if (!response.ok) {
    const why = [body.error, body.error_description].filter((part) => typeof part === "string" && part).join(": ") || text.slice(0, 200) || response.statusText;
    throw new GoogleAuthError(`Google refused an access token for the credentials in ${file.named}: ${grant.tokenUri} answered ${response.status}: ${why}`, response.status >= 500 || response.status === 429);
  }
  if (typeof body.access_token !== "string" || body.access_token === "") {
    throw new GoogleAuthError(`${grant.tokenUri} answered without an access_token for the credentials in ${file.named}`);
  }
  checkedToken(body.access_token, `the access_token ${grant.tokenUri} answered with for the credentials in ${file.named}`);
  const seconds = typeof body.expires_in === "number" && body.expires_in > 0 ? body.expires_in : 3600;
  return { token: body.access_token, expires: now() + seconds * 1000 };
}

/** `token`, when it can go in a request's Authorization header; `named` says where it came from
 * (never the token itself). */
export function checkedToken(token: string, named: string): string {
  if (!isHeaderToken(token)) throw new GoogleAuthError(`${named} ${NOT_A_HEADER_TOKEN}`);
  return token;
}

async function readCredentials(file: { path: string; named: string }): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(file.path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const hint = "set GOOGLE_APPLICATION_CREDENTIALS to a service account key file, or run `gcloud auth application-default login`";
    throw new GoogleAuthError(code === "ENOENT" ? `no Google credentials for Vertex AI: ${file.named} does not exist; ${hint}` : `cannot read the Google credentials in ${file.named}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new GoogleAuthError(`the Google credentials in ${file.named} are not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new GoogleAuthError(`the Google credentials in ${file.named} must be a JSON object`);
  return value as Record<string, unknown>;
}

function grantOf(credentials: Record<string, unknown>, named: string): Grant {
  const field = (name: string): string => {
    const value = credentials[name];
    if (typeof value !== "string" || value === "") throw new GoogleAuthError(`the Google credentials in ${named} have no "${name}"`);
    return value;
  };
  const tokenUri = typeof credentials.token_uri === "string" && credentials.token_uri ? credentials.token_uri : DEFAULT_TOKEN_URI;
  if (!/^https?:\/\//.test(tokenUri)) throw new GoogleAuthError(`the Google credentials in ${named} have a token_uri that is not an http(s) URL: ${JSON.stringify(tokenUri)}`);
  switch (credentials.type) {
    case "service_account": {
      const email = field("client_email");
      const key = field("private_key");
      const keyId = typeof credentials.private_key_id === "string" ? credentials.private_key_id : undefined;
      return { tokenUri, form: () => ({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion: signedJwt(email, key, keyId, tokenUri, Date.now(), named) }) };
    }
    case "authorized_user": {
      const form = { grant_type: "refresh_token", client_id: field("client_id"), client_secret: field("client_secret"), refresh_token: field("refresh_token") };
      return { tokenUri, form: () => form };
    }
    default:
      throw new GoogleAuthError(`the Google credentials in ${named} are of type ${JSON.stringify(credentials.type ?? null)}: Vertex AI here takes a "service_account" key or gcloud's "authorized_user" credentials`);
  }
}

/** The service account's assertion: a JWT for the cloud-platform scope, an hour long, signed RS256. */
function signedJwt(email: string, privateKey: string, keyId: string | undefined, audience: string, nowMs: number, named: string): string {
  const iat = Math.floor(nowMs / 1000);
  const header = { alg: "RS256", typ: "JWT", ...(keyId && { kid: keyId }) };
  const claims = { iss: email, scope: CLOUD_PLATFORM_SCOPE, aud: audience, iat, exp: iat + 3600 };
  const unsigned = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  let signature: Buffer;
  try {
    signature = sign("RSA-SHA256", Buffer.from(unsigned), privateKey);
  } catch (error) {
    throw new GoogleAuthError(`the private_key of the Google credentials in ${named} is not a usable RSA key: ${(error as Error).message}`);
  }
  return `${unsigned}.${signature.toString("base64url")}`;
}

function base64url(text: string): string {
  return Buffer.from(text).toString("base64url");
}
