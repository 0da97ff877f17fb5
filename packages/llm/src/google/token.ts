// Google access tokens for Vertex AI from Application Default Credentials, as google-auth-library
// finds them: the file named by GOOGLE_APPLICATION_CREDENTIALS, else the one `gcloud auth
// application-default login` writes, else the metadata server (metadata.ts). A file holds a
// service account's key (it signs a JWT and trades it for a token), gcloud's user credentials (they
// trade their refresh token), an external account (external-account.ts) or an impersonated
// service account (its source credentials' token buys the target's, impersonation.ts).
// A token is kept, and handed out while it has the life left its caller asks for (a minute by default).
import { sign } from "node:crypto";
import { readFile } from "node:fs/promises";
import { GoogleAuthError } from "./auth-error.ts";
import { externalAccountToken } from "./external-account.ts";
import { CLOUD_PLATFORM_SCOPE, impersonatedToken } from "./impersonation.ts";
import { metadataServer, metadataToken } from "./metadata.ts";
import { httpUrl, oauthToken, type Fetch, type Kept } from "./reply.ts";
import { fetchFor } from "../net/http-fetch.ts";
import { credentialsFile } from "../vertex/settings.ts";

export { checkedToken, GoogleAuthError } from "./auth-error.ts";
export { CLOUD_PLATFORM_SCOPE } from "./impersonation.ts";

type Env = Readonly<Record<string, string | undefined>>;
type Fields = Record<string, unknown>;

const DEFAULT_TOKEN_URI = "https://oauth2.googleapis.com/token";
/** By default, a token is asked for again this long before it expires. */
const EXPIRY_MARGIN_MS = 60_000;

/** Tokens by credentials file (the metadata server's under the file it stands in for): every
 * provider of a process shares one. */
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
  const asked = fetchToken(env, file, now);
  tokens.set(file.path, asked);
  // A failure is not kept: the next request asks again (the file may have been mended).
  asked.catch(() => {
    if (tokens.get(file.path) === asked) tokens.delete(file.path);
  });
  return (await asked).token;
}

async function fetchToken(env: Env, file: { path: string; named: string }, now: () => number): Promise<Kept> {
  const given = Boolean(env.GOOGLE_APPLICATION_CREDENTIALS?.trim());
  const credentials = await readCredentials(file, given);
  // Asked through the proxy `env` names, as the model's requests are; the metadata server is local.
  if (credentials !== undefined) return tokenOf(credentials, file.named, now, fetchFor(env));
  const server = metadataServer(env);
  const token = await metadataToken(server, now);
  if (token !== undefined) return token;
  throw new GoogleAuthError(
    `no Google credentials for Vertex AI: GOOGLE_APPLICATION_CREDENTIALS is not set, ${file.named} does not exist, and no metadata server answered at ${server.named}; set GOOGLE_APPLICATION_CREDENTIALS to a credentials file, or run \`gcloud auth application-default login\``,
  );
}

/** The credentials in `file`; undefined when it is gcloud's default place and nothing is there. */
async function readCredentials(file: { path: string; named: string }, given: boolean): Promise<Fields | undefined> {
  let text: string;
  try {
    text = await readFile(file.path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" && !given) return undefined;
    const hint = "set GOOGLE_APPLICATION_CREDENTIALS to a credentials file, or run `gcloud auth application-default login`";
    throw new GoogleAuthError(code === "ENOENT" ? `no Google credentials for Vertex AI: ${file.named} does not exist; ${hint}` : `cannot read the Google credentials in ${file.named}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new GoogleAuthError(`the Google credentials in ${file.named} are not JSON: ${(error as Error).message}`);
  }
  if (!isObject(value)) throw new GoogleAuthError(`the Google credentials in ${file.named} must be a JSON object`);
  return value;
}

/** The token of the credentials read from `named`; `impersonating` when they are an impersonated
 * service account's source credentials, which are a key or gcloud's user credentials only. */
function tokenOf(credentials: Fields, named: string, now: () => number, doFetch: Fetch, impersonating = false): Promise<Kept> {
  const field = (name: string): string => {
    const value = credentials[name];
    if (typeof value !== "string" || value === "") throw new GoogleAuthError(`the Google credentials in ${named} have no "${impersonating ? `source_credentials.${name}` : name}"`);
    return value;
  };
  const tokenUri = () => (credentials.token_uri === undefined || credentials.token_uri === "" ? DEFAULT_TOKEN_URI : httpUrl(credentials.token_uri, "token_uri", named));
  switch (impersonating && credentials.type !== "service_account" && credentials.type !== "authorized_user" ? "source" : credentials.type) {
    case "service_account": {
      const email = field("client_email");
      const key = field("private_key");
      const keyId = typeof credentials.private_key_id === "string" ? credentials.private_key_id : undefined;
      const uri = tokenUri();
      return oauthToken(uri, { grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion: signedJwt(email, key, keyId, uri, Date.now(), named) }, named, now, {}, doFetch);
    }
    case "authorized_user":
      return oauthToken(tokenUri(), { grant_type: "refresh_token", client_id: field("client_id"), client_secret: field("client_secret"), refresh_token: field("refresh_token") }, named, now, {}, doFetch);
    case "external_account":
      return externalAccountToken(credentials, named, now, doFetch);
    case "impersonated_service_account":
      return impersonated(credentials, named, now, doFetch);
    case "source":
      throw new GoogleAuthError(`the Google credentials in ${named} impersonate with source_credentials of type ${JSON.stringify(credentials.type ?? null)}: they must be a "service_account" key or gcloud's "authorized_user" credentials`);
    default:
      throw new GoogleAuthError(
        `the Google credentials in ${named} are of type ${JSON.stringify(credentials.type ?? null)}: Vertex AI here takes a "service_account" key, gcloud's "authorized_user" or "impersonated_service_account" credentials, or an "external_account"`,
      );
  }
}

async function impersonated(credentials: Fields, named: string, now: () => number, doFetch: Fetch): Promise<Kept> {
  const url = httpUrl(credentials.service_account_impersonation_url, "service_account_impersonation_url", named);
  if (!isObject(credentials.source_credentials)) throw new GoogleAuthError(`the Google credentials in ${named} have no "source_credentials" object`);
  const source = await tokenOf(credentials.source_credentials, named, now, doFetch, true);
  return impersonatedToken({ url, sourceToken: source.token, delegates: credentials.delegates, named, now, fetch: doFetch });
}

function isObject(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
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
