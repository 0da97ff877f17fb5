// Keys of an assumed role (a profile's role_arn), got as the AWS CLI gets them: STS's AssumeRole
// (the Query API: a form POST signed with SigV4 for "sts", answered in XML), signed with the keys
// of the profile's source_profile or of the environment (credential_source = Environment). The keys
// are kept until a minute before they expire.
import { type CommandOptions, CREDENTIAL_TIMEOUT_MS, keptCredentials } from "./credential-process.ts";
import { AwsCredentialsError } from "./credentials-error.ts";
import type { Profile } from "./profile.ts";
import { type ServiceReply, serviceEndpoint, serviceReply } from "./service.ts";
import { type AwsCredentials, signatureHeaders } from "./sigv4.ts";
import { isHeaderToken, NOT_A_HEADER_TOKEN } from "../header-token.ts";

type Env = Readonly<Record<string, string | undefined>>;

export type Role = {
  profile: string;
  /** The file the profile's role_arn stands in. */
  where: string;
  arn: string;
  sessionName?: string;
  externalId?: string;
  durationSeconds?: number;
  /** The STS region: the profile's, else AWS_REGION or AWS_DEFAULT_REGION, else us-east-1. */
  region: string;
  /** The source profile's name, or "Environment" (credential_source). */
  source: string;
};

/** An IAM role's ARN, as role_arn and AWS_ROLE_ARN must be. */
export const ROLE_ARN = /^arn:[\w-]+:iam::\d{12}:role\/\S+$/;
export const ROLE_ARN_FORM = "arn:aws:iam::<account id>:role/<name>";
/** A session name STS takes, as role_session_name and AWS_ROLE_SESSION_NAME must be. */
export const SESSION_NAME = /^[\w+=,.@-]{2,64}$/;
export const SESSION_NAME_FORM = "2 to 64 letters, digits or +=,.@_-";

/** The role `profile` assumes; throws an AwsCredentialsError for settings harness cannot follow. */
export function roleOf(profile: Profile, env: Env): Role {
  const where = profile.where("role_arn");
  const named = `profile "${profile.name}" in ${where}`;
  if (profile.get("mfa_serial")) {
    throw new AwsCredentialsError(`${named} needs an MFA code (mfa_serial), which harness cannot ask for: use a credential_process that asks for it, or export the keys (aws configure export-credentials --profile ${profile.name} --format env)`);
  }
  const sourceProfile = profile.get("source_profile");
  const credentialSource = profile.get("credential_source");
  if (sourceProfile && credentialSource) throw new AwsCredentialsError(`${named} has both source_profile and credential_source: name one`);
  if (credentialSource && credentialSource !== "Environment") {
    throw new AwsCredentialsError(`${named} has credential_source = ${credentialSource}: harness takes only Environment there, or a source_profile`);
  }
  const source = sourceProfile || credentialSource;
  if (!source) throw new AwsCredentialsError(`${named} has role_arn but neither source_profile nor credential_source: name the keys that assume the role`);
  const externalId = profile.get("external_id");
  return { profile: profile.name, where, source, ...profileRole(profile, named, env), ...(externalId && { externalId }) };
}

/** What a profile says of the role it assumes, however it assumes it (role_arn with a source, or
 * with a web identity): checked, with the STS region. `named`: "profile "x" in <file>". */
export function profileRole(profile: Profile, named: string, env: Env): Pick<Role, "arn" | "sessionName" | "durationSeconds" | "region"> {
  const arn = profile.get("role_arn") as string;
  if (!ROLE_ARN.test(arn)) throw new AwsCredentialsError(`${named} has role_arn ${JSON.stringify(arn)}, which is no IAM role ARN (${ROLE_ARN_FORM})`);
  const sessionName = profile.get("role_session_name");
  if (sessionName !== undefined && !SESSION_NAME.test(sessionName)) {
    throw new AwsCredentialsError(`${named} has role_session_name ${JSON.stringify(sessionName)}: it must be ${SESSION_NAME_FORM}`);
  }
  const duration = profile.get("duration_seconds");
  const durationSeconds = duration === undefined ? undefined : Number(duration);
  if (durationSeconds !== undefined && !(/^\d+$/.test(duration as string) && durationSeconds >= 900 && durationSeconds <= 43200)) {
    throw new AwsCredentialsError(`${named} has duration_seconds ${JSON.stringify(duration)}: it must be a whole number of seconds from 900 to 43200`);
  }
  return {
    arn,
    region: profile.get("region") || stsRegion(env),
    ...(sessionName && { sessionName }),
    ...(durationSeconds !== undefined && { durationSeconds }),
  };
}

/** The region STS is asked in when no profile names one: AWS_REGION or AWS_DEFAULT_REGION, else us-east-1. */
export function stsRegion(env: Env): string {
  return env.AWS_REGION?.trim() || env.AWS_DEFAULT_REGION?.trim() || "us-east-1";
}

/** The environment's keys, for a role whose credential_source is Environment. */
export function environmentKeys(role: Role, env: Env): AwsCredentials {
  const accessKeyId = env.AWS_ACCESS_KEY_ID?.trim();
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY?.trim();
  if (!accessKeyId || !secretAccessKey) {
    throw new AwsCredentialsError(`profile "${role.profile}" in ${role.where} assumes its role with credential_source = Environment, but AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set`);
  }
  const sessionToken = env.AWS_SESSION_TOKEN?.trim();
  return { accessKeyId, secretAccessKey, ...(sessionToken && { sessionToken }) };
}

/** STS's regional endpoint for `region`, or where AWS_ENDPOINT_URL_STS / AWS_ENDPOINT_URL say. */
export function stsUrl(env: Env, region: string): string {
  return serviceEndpoint(env, "STS", `https://sts.${region}.amazonaws.com${region.startsWith("cn-") ? ".cn" : ""}`);
}

/** The keys of `role`, assumed with `source`'s keys (kept per source key). */
export function assumeRoleKeys(role: Role, source: AwsCredentials, env: Env, options: CommandOptions = {}): Promise<AwsCredentials> {
  const url = stsUrl(env, role.region);
  const now = options.now ?? Date.now;
  const key = `role\0${role.where}\0${role.profile}\0${role.arn}\0${url}\0${source.accessKeyId}`;
  return keptCredentials(key, now, async () => {
    const form = new URLSearchParams({ Action: "AssumeRole", Version: "2011-06-15", RoleArn: role.arn, RoleSessionName: role.sessionName ?? `harness-${now()}` });
    if (role.externalId) form.set("ExternalId", role.externalId);
    if (role.durationSeconds !== undefined) form.set("DurationSeconds", String(role.durationSeconds));
    const body = form.toString();
    const target = new URL(`${url}/`);
    const headers = { "content-type": "application/x-www-form-urlencoded; charset=utf-8", ...signatureHeaders("POST", target, body, source, { region: role.region, service: "sts" }) };
    const named = `AWS STS (${url})`;
    const purpose = `for profile "${role.profile}"`;
    const reply = await serviceReply(env, named, purpose, target.href, { method: "POST", headers, body }, options.timeoutMs ?? CREDENTIAL_TIMEOUT_MS);
    if (!reply.ok) throw new AwsCredentialsError(`${named} refused AssumeRole of ${role.arn} ${purpose}: ${stsRefusal(reply)}`);
    return assumedKeys(reply.text, `${named} answered AssumeRole ${purpose} with`);
  });
}

/** Pure: the keys in the XML answer of AssumeRole (or AssumeRoleWithWebIdentity); `said` begins each error ("AWS STS … answered … with"). */
export function assumedKeys(xml: string, said: string): { keys: AwsCredentials; expiresAt: number } {
  const credentials = element(xml, "Credentials");
  if (credentials === undefined) throw new AwsCredentialsError(`${said} no Credentials`);
  const field = (name: string) => {
    const value = tag(credentials, name);
    if (!value) throw new AwsCredentialsError(`${said} no ${name}`);
    if (!isHeaderToken(value)) throw new AwsCredentialsError(`${said} ${/^[AEIOU]/.test(name) ? "an" : "a"} ${name} that ${NOT_A_HEADER_TOKEN}`);
    return value;
  };
  const keys = { accessKeyId: field("AccessKeyId"), secretAccessKey: field("SecretAccessKey"), sessionToken: field("SessionToken") };
  const expiration = field("Expiration");
  const expiresAt = Date.parse(expiration);
  if (Number.isNaN(expiresAt)) throw new AwsCredentialsError(`${said} an Expiration that is not a time: ${JSON.stringify(expiration)}`);
  return { keys, expiresAt };
}

/** What STS said in refusing: "403 AccessDenied: <its message>". */
export function stsRefusal(reply: ServiceReply): string {
  const code = tag(reply.text, "Code") ?? reply.headers.get("x-amzn-errortype")?.split(":")[0];
  const message = tag(reply.text, "Message") ?? "";
  return `${reply.status}${code ? ` ${code}` : ""}${message ? `: ${message}` : ""}`;
}

/** The text of the first <name> element in `xml`, its entities decoded. */
function tag(xml: string, name: string): string | undefined {
  const found = element(xml, name);
  if (found === undefined) return undefined;
  const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
  return found.trim().replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (entity, body: string) => {
    if (body[0] !== "#") return named[body] ?? entity;
    const code = body[1] === "x" || body[1] === "X" ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : entity;
  });
}

/** What the first <name> element in `xml` holds, as it is written. */
function element(xml: string, name: string): string | undefined {
  return new RegExp(`<${name}(?:\\s[^>]*)?>([\\s\\S]*?)</${name}>`).exec(xml)?.[1];
}
