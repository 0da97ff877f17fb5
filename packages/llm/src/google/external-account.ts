// An external account (workload identity federation, "type": "external_account"): a subject token
// from outside Google (a file such as a Kubernetes service account token, or a URL such as a CI
// system's OIDC endpoint) is exchanged at the STS token_url for a Google token, which then, when
// service_account_impersonation_url is set, buys the service account's token. Subject tokens from
// AWS or from an executable are refused by name.
import { open } from "node:fs/promises";
import { GoogleAuthError } from "./auth-error.ts";
import { askGoogle, httpUrl, oauthToken, refusalOf, type Fetch, type Kept } from "./reply.ts";
import { CLOUD_PLATFORM_SCOPE, impersonatedToken } from "./impersonation.ts";

/** A subject token is a JWT or SAML assertion: a few KiB. */
const MAX_SUBJECT_BYTES = 64 * 1024;
const EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";

type Fields = Record<string, unknown>;

export async function externalAccountToken(credentials: Fields, named: string, now: () => number, doFetch: Fetch = fetch): Promise<Kept> {
  const text = (name: string): string => {
    const value = credentials[name];
    if (typeof value !== "string" || value === "") throw new GoogleAuthError(`the Google credentials in ${named} have no "${name}"`);
    return value;
  };
  const audience = text("audience");
  const subjectTokenType = text("subject_token_type");
  const tokenUrl = httpUrl(credentials.token_url, "token_url", named);
  const impersonation = credentials.service_account_impersonation_url === undefined ? undefined : httpUrl(credentials.service_account_impersonation_url, "service_account_impersonation_url", named);
  const source = credentials.credential_source;
  if (typeof source !== "object" || source === null || Array.isArray(source)) throw new GoogleAuthError(`the Google credentials in ${named} have no "credential_source" object`);
  const subjectToken = await subjectTokenOf(source as Fields, named, doFetch);

  const form: Record<string, string> = { grant_type: EXCHANGE, audience, scope: CLOUD_PLATFORM_SCOPE, requested_token_type: ACCESS_TOKEN_TYPE, subject_token: subjectToken, subject_token_type: subjectTokenType };
  const headers: Record<string, string> = {};
  if (typeof credentials.client_id === "string" && credentials.client_id) {
    const secret = typeof credentials.client_secret === "string" ? credentials.client_secret : "";
    headers.authorization = `Basic ${Buffer.from(`${credentials.client_id}:${secret}`).toString("base64")}`;
  } else if (typeof credentials.workforce_pool_user_project === "string" && credentials.workforce_pool_user_project) {
    form.options = JSON.stringify({ userProject: credentials.workforce_pool_user_project });
  }
  const federated = await oauthToken(tokenUrl, form, named, now, headers, doFetch);
  if (impersonation === undefined) return federated;
  const lifetime = (credentials.service_account_impersonation as Fields | undefined)?.token_lifetime_seconds;
  if (lifetime !== undefined && !(Number.isInteger(lifetime) && (lifetime as number) >= 600 && (lifetime as number) <= 43_200)) {
    throw new GoogleAuthError(`the Google credentials in ${named} have a service_account_impersonation.token_lifetime_seconds that is not a whole number of seconds from 600 to 43200`);
  }
  return impersonatedToken({ url: impersonation, sourceToken: federated.token, lifetimeSeconds: lifetime as number | undefined, named, now, fetch: doFetch });
}

async function subjectTokenOf(source: Fields, named: string, doFetch: Fetch): Promise<string> {
  const unsupported = (from: string) => new GoogleAuthError(`the external account in ${named} takes its subject token from ${from}, which Harness does not support yet: use a file- or URL-sourced credential_source`);
  if (typeof source.environment_id === "string" && source.environment_id.startsWith("aws")) throw unsupported(`AWS (credential_source.environment_id ${JSON.stringify(source.environment_id)})`);
  if (source.executable !== undefined) throw unsupported("an executable (credential_source.executable)");
  const format = formatOf(source.format, named);
  if (typeof source.file === "string" && source.file) {
    const raw = await fileText(source.file, named);
    return tokenIn(raw, format, `the subject token file ${source.file}`);
  }
  if (source.url !== undefined) {
    const url = httpUrl(source.url, "credential_source.url", named);
    const headers = source.headers === undefined ? {} : headersOf(source.headers, named);
    const reply = await askGoogle(url, { headers }, "a subject token", doFetch);
    if (!reply.response.ok) throw new GoogleAuthError(`the subject token URL ${url} of the external account in ${named} answered ${reply.response.status}: ${refusalOf(reply)}`, reply.response.status >= 500 || reply.response.status === 429);
    return tokenIn(reply.text, format, `the subject token from ${url}`);
  }
  throw new GoogleAuthError(`the external account in ${named} has a credential_source with neither "file" nor "url"`);
}

type Format = { json?: string };

function formatOf(value: unknown, named: string): Format {
  if (value === undefined) return {};
  const format = value as Fields;
  if (typeof value !== "object" || value === null || (format.type !== undefined && format.type !== "text" && format.type !== "json")) {
    throw new GoogleAuthError(`the external account in ${named} has a credential_source.format whose type is not "text" or "json"`);
  }
  if (format.type !== "json") return {};
  if (typeof format.subject_token_field_name !== "string" || !format.subject_token_field_name) throw new GoogleAuthError(`the external account in ${named} has a JSON credential_source.format without a subject_token_field_name`);
  return { json: format.subject_token_field_name };
}

/** The subject token in `raw`; `from` names where it was read (never the token). */
function tokenIn(raw: string, format: Format, from: string): string {
  let token: unknown = raw.trim();
  if (format.json !== undefined) {
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      throw new GoogleAuthError(`${from} is not JSON, as its credential_source.format says`);
    }
    token = typeof body === "object" && body !== null ? (body as Fields)[format.json] : undefined;
    if (typeof token !== "string" || token === "") throw new GoogleAuthError(`${from} has no string field ${JSON.stringify(format.json)}`);
  }
  if (token === "") throw new GoogleAuthError(`${from} is empty`);
  return token as string;
}

function headersOf(value: unknown, named: string): Record<string, string> {
  if (typeof value !== "object" || value === null || Array.isArray(value) || !Object.values(value).every((entry) => typeof entry === "string")) {
    throw new GoogleAuthError(`the external account in ${named} has credential_source.headers that are not an object of strings`);
  }
  return value as Record<string, string>;
}

/** The start of `path`, no more than a subject token can be. */
async function fileText(path: string, named: string): Promise<string> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, "r");
    const buffer = Buffer.alloc(MAX_SUBJECT_BYTES + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > MAX_SUBJECT_BYTES) throw new GoogleAuthError(`the subject token file ${path} of the external account in ${named} is longer than ${MAX_SUBJECT_BYTES / 1024} KiB, which is no token`);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } catch (error) {
    if (error instanceof GoogleAuthError) throw error;
    throw new GoogleAuthError(`cannot read the subject token file ${path} of the external account in ${named}: ${(error as Error).message}`);
  } finally {
    await handle?.close();
  }
}
