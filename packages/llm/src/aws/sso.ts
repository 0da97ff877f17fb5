// Keys of an SSO profile (IAM Identity Center), got as the AWS CLI gets them: the access token
// `aws sso login` cached in ~/.aws/sso/cache/<sha1 of the sso-session's name, or of the legacy
// form's start URL>.json, traded at the portal (GET /federation/credentials) for the keys of the
// profile's account and role. The keys are kept until a minute before they expire. An expired token
// is not renewed here: the error says to sign in again, and the awsAuthRefresh setting does so.
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type CommandOptions, CREDENTIAL_TIMEOUT_MS, keptCredentials } from "./credential-process.ts";
import { AwsCredentialsError } from "./credentials-error.ts";
import type { Profile } from "./profile.ts";
import { serviceEndpoint, serviceReply } from "./service.ts";
import type { AwsCredentials } from "./sigv4.ts";
import { REGION, ssoCacheDir } from "../bedrock/settings.ts";
import { isHeaderToken, NOT_A_HEADER_TOKEN } from "../header-token.ts";

type Env = Readonly<Record<string, string | undefined>>;

export type Sso = {
  profile: string;
  /** The config file. */
  where: string;
  /** The sso-session's name; none in the legacy form. */
  session?: string;
  startUrl: string;
  region: string;
  accountId: string;
  roleName: string;
};

/** The SSO settings of `profile` (sso_session naming an [sso-session] section, or the legacy
 * sso_start_url and sso_region); throws an AwsCredentialsError naming what is missing or wrong. */
export function ssoOf(profile: Profile): Sso {
  const where = profile.where("sso_account_id");
  const named = `profile "${profile.name}" in ${where}`;
  const session = profile.get("sso_session");
  let startUrl = profile.get("sso_start_url");
  let region = profile.get("sso_region");
  if (session) {
    const section = profile.section(`sso-session ${session}`);
    if (!section) throw new AwsCredentialsError(`${named} names sso_session "${session}", which has no [sso-session ${session}] section there`);
    for (const [key, given] of [["sso_start_url", startUrl], ["sso_region", region]] as const) {
      const value = section.get(key);
      if (!value) throw new AwsCredentialsError(`[sso-session ${session}] in ${where} has no ${key}`);
      if (given !== undefined && given !== value) throw new AwsCredentialsError(`${named} has ${key} ${given}, but its sso-session "${session}" has ${value}: remove the profile's`);
    }
    startUrl = section.get("sso_start_url");
    region = section.get("sso_region");
  }
  for (const [key, value] of [["sso_start_url", startUrl], ["sso_region", region], ["sso_account_id", profile.get("sso_account_id")], ["sso_role_name", profile.get("sso_role_name")]]) {
    if (!value) throw new AwsCredentialsError(`${named} has no ${key}: an SSO profile needs ${session ? "" : "sso_start_url, sso_region, "}sso_account_id and sso_role_name`);
  }
  if (!REGION.test(region as string)) throw new AwsCredentialsError(`the sso_region of ${named} must be an AWS region such as us-east-1, got ${JSON.stringify(region)}`);
  const accountId = profile.get("sso_account_id") as string;
  if (!/^\d{12}$/.test(accountId)) throw new AwsCredentialsError(`${named} has sso_account_id ${JSON.stringify(accountId)}, which is no AWS account id (12 digits)`);
  return { profile: profile.name, where, ...(session && { session }), startUrl: startUrl as string, region: region as string, accountId, roleName: profile.get("sso_role_name") as string };
}

/** The portal for `region`, or where AWS_ENDPOINT_URL_SSO / AWS_ENDPOINT_URL say. */
export function ssoPortalUrl(env: Env, region: string): string {
  return serviceEndpoint(env, "SSO", `https://portal.sso.${region}.amazonaws.com`);
}

/** The keys of `sso`'s account and role. */
export function ssoKeys(sso: Sso, env: Env, options: CommandOptions = {}): Promise<AwsCredentials> {
  const portal = ssoPortalUrl(env, sso.region);
  const now = options.now ?? Date.now;
  return keptCredentials(`sso\0${portal}\0${sso.startUrl}\0${sso.accountId}\0${sso.roleName}`, now, async () => {
    const token = await cachedToken(sso, env, now());
    const url = `${portal}/federation/credentials?${new URLSearchParams({ account_id: sso.accountId, role_name: sso.roleName })}`;
    const named = `the AWS SSO portal (${portal})`;
    const purpose = `for profile "${sso.profile}"`;
    const reply = await serviceReply(env, named, purpose, url, { headers: { "x-amz-sso_bearer_token": token, accept: "application/json" } }, options.timeoutMs ?? CREDENTIAL_TIMEOUT_MS);
    let json: unknown;
    try {
      json = JSON.parse(reply.text);
    } catch {
      // Said below.
    }
    if (!reply.ok) {
      const type = reply.headers.get("x-amzn-errortype")?.split(":")[0];
      const said = (json as { message?: unknown; Message?: unknown } | undefined)?.message ?? (json as { Message?: unknown } | undefined)?.Message;
      const why = `${reply.status}${type ? ` ${type}` : ""}${typeof said === "string" && said ? `: ${said.slice(0, 300)}` : ""}`;
      if (reply.status === 401) throw new AwsCredentialsError(`${named} refused the token of profile "${sso.profile}": ${why}: ${signIn(sso)}`);
      throw new AwsCredentialsError(`${named} refused role ${sso.roleName} in account ${sso.accountId} ${purpose}: ${why}`);
    }
    return roleCredentials(json, `${named} answered ${purpose} with`);
  });
}

/** Pure: the keys in the portal's answer; `said` begins each error ("the AWS SSO portal … answered … with"). */
export function roleCredentials(json: unknown, said: string): { keys: AwsCredentials; expiresAt: number } {
  const credentials = (json as { roleCredentials?: unknown } | undefined)?.roleCredentials;
  if (typeof credentials !== "object" || credentials === null) throw new AwsCredentialsError(`${said} no roleCredentials`);
  const field = (name: string) => {
    const value = (credentials as Record<string, unknown>)[name];
    if (typeof value !== "string" || value === "") throw new AwsCredentialsError(`${said} no roleCredentials.${name}`);
    if (!isHeaderToken(value)) throw new AwsCredentialsError(`${said} a roleCredentials.${name} that ${NOT_A_HEADER_TOKEN}`);
    return value;
  };
  const keys = { accessKeyId: field("accessKeyId"), secretAccessKey: field("secretAccessKey"), sessionToken: field("sessionToken") };
  const expiration = (credentials as { expiration?: unknown }).expiration;
  if (typeof expiration !== "number" || !Number.isFinite(expiration)) throw new AwsCredentialsError(`${said} no roleCredentials.expiration (milliseconds)`);
  return { keys, expiresAt: expiration };
}

/** The access token `aws sso login` cached for `sso`, while it has not expired. */
async function cachedToken(sso: Sso, env: Env, now: number): Promise<string> {
  const of = `${sso.session ? `sso-session "${sso.session}"` : sso.startUrl} (profile "${sso.profile}")`;
  const file = join(ssoCacheDir(env), `${createHash("sha1").update(sso.session ?? sso.startUrl).digest("hex")}.json`);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new AwsCredentialsError(`no SSO token for ${of} in ${file}: ${signIn(sso)}`);
    throw new AwsCredentialsError(`cannot read the SSO token for ${of}: ${(error as Error).message}`);
  }
  let cached: { accessToken?: unknown; expiresAt?: unknown } | undefined;
  try {
    cached = JSON.parse(text);
  } catch {
    // Said below.
  }
  const token = cached?.accessToken;
  const expiresAt = typeof cached?.expiresAt === "string" ? cached.expiresAt : "";
  // The AWS CLI v1 wrote "…UTC" where v2 writes "…Z".
  const expires = Date.parse(expiresAt.replace(/UTC$/, "Z"));
  if (typeof token !== "string" || token === "" || Number.isNaN(expires)) throw new AwsCredentialsError(`the SSO token for ${of} in ${file} has no accessToken and expiresAt: ${signIn(sso)}`);
  if (!isHeaderToken(token)) throw new AwsCredentialsError(`the accessToken for ${of} in ${file} ${NOT_A_HEADER_TOKEN}`);
  if (expires <= now) throw new AwsCredentialsError(`the SSO token of ${of} expired at ${expiresAt}: ${signIn(sso)}`);
  return token;
}

function signIn(sso: Sso): string {
  return `run \`aws sso login --profile ${sso.profile}\``;
}
