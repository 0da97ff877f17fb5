// A profile's keys in the shared credentials and config files, found as the AWS SDKs find them. The
// profile named (AWS_PROFILE, default "default"): its role_arn (a role assumed with the keys of its
// source_profile or credential_source, else with its web_identity_token_file, as the AWS CLI orders
// them), else its static keys, else its credential_process, else its SSO settings. A role's
// source_profile is followed the same way, but its static keys come first (a profile may then be its
// own source), as deep as MAX_CHAIN and never round in a loop.
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { assumeRoleKeys, environmentKeys, roleOf } from "./assume-role.ts";
import { type CommandOptions, credentialProcessKeys } from "./credential-process.ts";
import { AwsCredentialsError } from "./credentials-error.ts";
import type { AwsCredentials } from "./sigv4.ts";
import { ssoKeys, ssoOf } from "./sso.ts";
import { profileWebIdentity, webIdentityKeys } from "./web-identity.ts";
import { awsFiles } from "../bedrock/settings.ts";
import { isHeaderToken, NOT_A_HEADER_TOKEN } from "../header-token.ts";

type Env = Readonly<Record<string, string | undefined>>;
type Ini = Map<string, Map<string, string>>;

/** Roles assumed through more source profiles than this are refused (as the AWS CLI's loops are). */
const MAX_CHAIN = 10;

/** One profile of the AWS files, the credentials file's settings over the config file's (as the AWS
 * CLI merges them). */
export type Profile = {
  name: string;
  /** Whether either file has it. */
  exists: boolean;
  get(key: string): string | undefined;
  /** The file `key` stands in; with no key, the config file. */
  where(key?: string): string;
  /** A section of the config file other than a profile, as "sso-session corp". */
  section(name: string): Map<string, string> | undefined;
};

/** The keys of profile AWS_PROFILE (default "default"); rejects with an AwsCredentialsError saying
 * what is missing or wrong, naming the profile and the file. */
export async function profileKeys(env: Env, options: CommandOptions = {}): Promise<AwsCredentials> {
  const files = awsFiles(env);
  const credentials = parseIni(await readText(files.credentials));
  const config = parseIni(await readText(files.config));
  const profileOf = (name: string): Profile => {
    const fromCredentials = credentials?.get(name);
    const fromConfig = config?.get(name === "default" ? "default" : `profile ${name}`);
    return {
      name,
      exists: fromCredentials !== undefined || fromConfig !== undefined,
      get: (key) => fromCredentials?.get(key) ?? fromConfig?.get(key),
      where: (key) => (key !== undefined && fromCredentials?.has(key) ? files.credentials : files.config),
      section: (section) => config?.get(section),
    };
  };
  const keysOf = async (name: string, chain: readonly string[]): Promise<AwsCredentials> => {
    const profile = profileOf(name);
    const top = profileOf(chain[0] ?? name);
    if (chain.length > 0 && hasStaticKeys(profile)) return staticKeys(profile);
    if (chain.includes(name)) throw new AwsCredentialsError(`profile "${top.name}" in ${top.where("source_profile")}: source_profile goes round in a loop (${[...chain, name].join(" → ")})`);
    if (chain.length > MAX_CHAIN) throw new AwsCredentialsError(`profile "${top.name}" in ${top.where("source_profile")}: its roles are assumed through more than ${MAX_CHAIN} source profiles`);
    const webIdentity = !profile.get("source_profile") && !profile.get("credential_source") && profile.get("web_identity_token_file");
    if (profile.get("role_arn") && webIdentity) return webIdentityKeys(profileWebIdentity(profile, env), env, options);
    if (profile.get("role_arn")) {
      const role = roleOf(profile, env);
      if (role.source === "Environment") return assumeRoleKeys(role, environmentKeys(role, env), env, options);
      if (!profileOf(role.source).exists) {
        throw new AwsCredentialsError(`profile "${name}" in ${profile.where("source_profile")} names source_profile "${role.source}", which is in neither ${files.credentials} nor ${files.config}`);
      }
      return assumeRoleKeys(role, await keysOf(role.source, [...chain, name]), env, options);
    }
    if (hasStaticKeys(profile)) return staticKeys(profile);
    const processLine = profile.get("credential_process");
    if (processLine) return credentialProcessKeys(name, processLine, profile.where("credential_process"), env, options);
    if (profile.get("sso_session") || profile.get("sso_start_url")) return ssoKeys(ssoOf(profile), env, options);
    throw new AwsCredentialsError(noKeys(profile, chain, files.credentials));
  };
  return keysOf(env.AWS_PROFILE?.trim() || "default", []);
}

/** Every web identity token file the AWS files and the environment name (AWS_WEB_IDENTITY_TOKEN_FILE
 * first), whichever profile may come to read it: a file that cannot be read names none. */
export function webIdentityTokenFiles(env: Env): string[] {
  const files = awsFiles(env);
  const named = [env.AWS_WEB_IDENTITY_TOKEN_FILE?.trim()];
  for (const path of [files.credentials, files.config]) {
    let text: string | undefined;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      continue;
    }
    for (const section of parseIni(text)?.values() ?? []) named.push(section.get("web_identity_token_file"));
  }
  return [...new Set(named.filter((file): file is string => Boolean(file)))];
}

function hasStaticKeys(profile: Profile): boolean {
  return Boolean(profile.get("aws_access_key_id") && profile.get("aws_secret_access_key"));
}

function staticKeys(profile: Profile): AwsCredentials {
  const value = (key: string) => {
    const found = profile.get(key) as string;
    if (!isHeaderToken(found)) throw new AwsCredentialsError(`${key} of profile "${profile.name}" in ${profile.where(key)} ${NOT_A_HEADER_TOKEN}`);
    return found;
  };
  const token = profile.get("aws_session_token") && value("aws_session_token");
  return { accessKeyId: value("aws_access_key_id"), secretAccessKey: value("aws_secret_access_key"), ...(token && { sessionToken: token }) };
}

/** Why `profile` gives no keys, and what to set. */
function noKeys(profile: Profile, chain: readonly string[], credentialsFile: string): string {
  const via = chain.length > 0 ? ` (the source_profile of profile "${chain[chain.length - 1]}")` : "";
  const none = `no AWS credentials for Amazon Bedrock: set AWS_BEARER_TOKEN_BEDROCK, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or aws_access_key_id and aws_secret_access_key for profile "${profile.name}"${via} in ${credentialsFile}`;
  if (profile.get("web_identity_token_file")) return `profile "${profile.name}" in ${profile.where("web_identity_token_file")} has web_identity_token_file but no role_arn: name the role the token assumes`;
  const id = profile.get("aws_access_key_id");
  if (profile.exists && (id || profile.get("aws_secret_access_key"))) return `${none} (the profile there has ${id ? "no aws_secret_access_key" : "no aws_access_key_id"})`;
  return none;
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new AwsCredentialsError(`cannot read ${path}: ${(error as Error).message}`);
  }
}

/** Sections of an INI file (the AWS files' form), their keys lowercased; undefined for no file. */
function parseIni(text: string | undefined): Ini | undefined {
  if (text === undefined) return undefined;
  const sections: Ini = new Map();
  let current: Map<string, string> | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[\s*(.+?)\s*\]$/.exec(line);
    if (header) {
      current = sections.get(header[1]) ?? new Map();
      sections.set(header[1], current);
      continue;
    }
    const eq = line.indexOf("=");
    if (current && eq > 0) current.set(line.slice(0, eq).trim().toLowerCase(), line.slice(eq + 1).trim());
  }
  return sections;
}
