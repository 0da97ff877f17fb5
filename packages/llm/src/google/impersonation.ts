// A service account's token through IAM Credentials' generateAccessToken, asked with another
// credential's token: how an impersonated service account (gcloud's
// --impersonate-service-account) and an external account with service_account_impersonation_url
// get the token Vertex AI is sent.
import { checkedToken, GoogleAuthError } from "./auth-error.ts";
import { askGoogle, refused, type Fetch, type Kept } from "./reply.ts";

export const CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform";

/** The target's token from `url` (…/serviceAccounts/{email}:generateAccessToken), asked with
 * `sourceToken`; `delegates` as the credentials give them, `lifetimeSeconds` an hour unless said. */
export async function impersonatedToken(input: { url: string; sourceToken: string; delegates?: unknown; lifetimeSeconds?: number; named: string; now: () => number; fetch?: Fetch }): Promise<Kept> {
  const { url, named, now } = input;
  const delegates = delegatesOf(input.delegates, named);
  const body = { scope: [CLOUD_PLATFORM_SCOPE], lifetime: `${input.lifetimeSeconds ?? 3600}s`, ...(delegates.length > 0 && { delegates }) };
  const reply = await askGoogle(url, { method: "POST", headers: { authorization: `Bearer ${input.sourceToken}`, "content-type": "application/json" }, body: JSON.stringify(body) }, "an impersonated service account's access token", input.fetch);
  if (!reply.response.ok) throw refused(url, reply, named);
  const { accessToken, expireTime } = reply.body;
  if (typeof accessToken !== "string" || accessToken === "") throw new GoogleAuthError(`${url} answered without an accessToken for the credentials in ${named}`);
  checkedToken(accessToken, `the accessToken ${url} answered with for the credentials in ${named}`);
  // expireTime is by the real clock; the kept token's expiry is by the caller's.
  const left = typeof expireTime === "string" ? Date.parse(expireTime) - Date.now() : Number.NaN;
  return { token: accessToken, expires: now() + (Number.isFinite(left) && left > 0 ? left : 3600_000) };
}

function delegatesOf(value: unknown, named: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((entry) => typeof entry === "string" && entry !== "")) throw new GoogleAuthError(`the Google credentials in ${named} have "delegates" that are not a list of service accounts`);
  return value;
}
