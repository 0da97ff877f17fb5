// Keys of a role assumed with a web identity, got as the AWS SDKs get them (EKS's IAM roles for
// service accounts, GitHub Actions' OIDC): the OIDC token in a file, which AWS_WEB_IDENTITY_TOKEN_FILE
// (with AWS_ROLE_ARN, AWS_ROLE_SESSION_NAME) or a profile's web_identity_token_file (with role_arn,
// role_session_name) names, traded at STS's AssumeRoleWithWebIdentity (the Query API, unsigned: the
// token is the proof). The file is read afresh for each trade, since whoever writes it rotates it;
// the keys are kept until a minute before they expire.
import { open } from "node:fs/promises";
import { assumedKeys, profileRole, ROLE_ARN, ROLE_ARN_FORM, SESSION_NAME, SESSION_NAME_FORM, stsRefusal, stsRegion, stsUrl } from "./assume-role.ts";
import { type CommandOptions, CREDENTIAL_TIMEOUT_MS, keptCredentials } from "./credential-process.ts";
import { AwsCredentialsError } from "./credentials-error.ts";
import type { Profile } from "./profile.ts";
import { serviceReply } from "./service.ts";
import type { AwsCredentials } from "./sigv4.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** STS takes a WebIdentityToken of at most this many characters: a longer file holds no token. */
const MAX_TOKEN_BYTES = 20_000;

export type WebIdentity = {
  tokenFile: string;
  /** Who names the file: "AWS_WEB_IDENTITY_TOKEN_FILE", or "profile "x" in <config file>". */
  namedBy: string;
  arn: string;
  sessionName?: string;
  durationSeconds?: number;
  region: string;
};

/** The web identity of AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN, or undefined when neither is
 * set; throws an AwsCredentialsError when one is set without the other, or is malformed. */
export function environmentWebIdentity(env: Env): WebIdentity | undefined {
  const tokenFile = env.AWS_WEB_IDENTITY_TOKEN_FILE?.trim();
  const arn = env.AWS_ROLE_ARN?.trim();
  if (!tokenFile && !arn) return undefined;
  if (!arn) throw new AwsCredentialsError("AWS_WEB_IDENTITY_TOKEN_FILE is set but AWS_ROLE_ARN is not: a web identity needs the role it assumes");
  if (!tokenFile) throw new AwsCredentialsError("AWS_ROLE_ARN is set but AWS_WEB_IDENTITY_TOKEN_FILE is not: harness assumes a role from the environment only with a web identity token file (EKS, GitHub Actions OIDC)");
  if (!ROLE_ARN.test(arn)) throw new AwsCredentialsError(`AWS_ROLE_ARN ${JSON.stringify(arn)} is no IAM role ARN (${ROLE_ARN_FORM})`);
  const sessionName = env.AWS_ROLE_SESSION_NAME?.trim();
  if (sessionName && !SESSION_NAME.test(sessionName)) throw new AwsCredentialsError(`AWS_ROLE_SESSION_NAME ${JSON.stringify(sessionName)}: it must be ${SESSION_NAME_FORM}`);
  return { tokenFile, namedBy: "AWS_WEB_IDENTITY_TOKEN_FILE", arn, region: stsRegion(env), ...(sessionName && { sessionName }) };
}

/** The web identity of a profile with web_identity_token_file and role_arn. */
export function profileWebIdentity(profile: Profile, env: Env): WebIdentity {
  const namedBy = `profile "${profile.name}" in ${profile.where("web_identity_token_file")}`;
  return { tokenFile: profile.get("web_identity_token_file") as string, namedBy, ...profileRole(profile, `profile "${profile.name}" in ${profile.where("role_arn")}`, env) };
}

/** The keys of `identity`'s role, kept per token file and role. */
export function webIdentityKeys(identity: WebIdentity, env: Env, options: CommandOptions = {}): Promise<AwsCredentials> {
  const url = stsUrl(env, identity.region);
  const now = options.now ?? Date.now;
  const key = `web-identity\0${identity.tokenFile}\0${identity.arn}\0${identity.sessionName ?? ""}\0${identity.durationSeconds ?? ""}\0${url}`;
  const file = `${identity.tokenFile} (${identity.namedBy})`;
  return keptCredentials(key, now, async () => {
    const token = await readToken(identity.tokenFile, `the web identity token file ${file} for role ${identity.arn}`);
    const form = new URLSearchParams({ Action: "AssumeRoleWithWebIdentity", Version: "2011-06-15", RoleArn: identity.arn, RoleSessionName: identity.sessionName ?? `harness-${now()}`, WebIdentityToken: token });
    if (identity.durationSeconds !== undefined) form.set("DurationSeconds", String(identity.durationSeconds));
    const named = `AWS STS (${url})`;
    const purpose = `for role ${identity.arn}`;
    const init = { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded; charset=utf-8" }, body: form.toString() };
    const reply = await serviceReply(env, named, purpose, `${url}/`, init, options.timeoutMs ?? CREDENTIAL_TIMEOUT_MS);
    if (!reply.ok) throw new AwsCredentialsError(`${named} refused AssumeRoleWithWebIdentity of ${identity.arn} with the token in ${file}: ${stsRefusal(reply)}`);
    return assumedKeys(reply.text, `${named} answered AssumeRoleWithWebIdentity ${purpose} with`);
  });
}

/** The token in `path` (`what` describes it), read no further than any token goes. */
async function readToken(path: string, what: string): Promise<string> {
  const buffer = Buffer.alloc(MAX_TOKEN_BYTES + 1);
  let length = 0;
  try {
    const handle = await open(path, "r");
    try {
      while (length < buffer.length) {
        const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
        if (bytesRead === 0) break;
        length += bytesRead;
      }
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw new AwsCredentialsError(`cannot read ${what}: ${(error as Error).message}`);
  }
  if (length > MAX_TOKEN_BYTES) throw new AwsCredentialsError(`${what} holds more than ${MAX_TOKEN_BYTES} bytes, which is no token STS takes`);
  const token = buffer.subarray(0, length).toString("utf8").trim();
  if (token === "") throw new AwsCredentialsError(`${what} is empty`);
  return token;
}
