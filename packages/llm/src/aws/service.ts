// Calls to the AWS services that hand out keys (the SSO portal, STS): where they go, as the AWS SDKs
// find it, and a reply read only as far as any such reply goes, within a time limit.
import { AwsCredentialsError } from "./credentials-error.ts";
import { fetchFor } from "../net/http-fetch.ts";
import { leadingText } from "@harness/protocol/leading-text";

type Env = Readonly<Record<string, string | undefined>>;

/** An answer with keys is a few KiB: a longer one is not read to its end. */
const MAX_REPLY_BYTES = 64 * 1024;

/** The endpoint of `service` ("SSO", "STS"), without a trailing "/": AWS_ENDPOINT_URL_<service>,
 * else AWS_ENDPOINT_URL, else `fallback`, as the AWS SDKs choose (AWS_IGNORE_CONFIGURED_ENDPOINT_URLS
 * = true: always `fallback`). Throws an AwsCredentialsError for a variable that is no http(s) URL. */
export function serviceEndpoint(env: Env, service: string, fallback: string): string {
  if (env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS?.trim().toLowerCase() === "true") return fallback;
  for (const name of [`AWS_ENDPOINT_URL_${service}`, "AWS_ENDPOINT_URL"]) {
    const value = env[name]?.trim();
    if (!value) continue;
    if (!/^https?:\/\/[^/\s]+/i.test(value) || !URL.canParse(value)) throw new AwsCredentialsError(`${name} must be an http(s) URL, got ${JSON.stringify(value)}`);
    return value.replace(/\/+$/, "");
  }
  return fallback;
}

export type ServiceReply = { status: number; ok: boolean; headers: Headers; text: string };

/** `url`'s answer to `init`, through the proxy `env` names (as the model's requests go). `named` says who is asked ("the AWS SSO portal (https://…)") and
 * `purpose` what for ("for profile "dev""): a reply that does not come within `timeoutMs`, breaks
 * off or runs on rejects with an AwsCredentialsError in those words. */
export async function serviceReply(env: Env, named: string, purpose: string, url: string, init: RequestInit, timeoutMs: number): Promise<ServiceReply> {
  const signal = AbortSignal.timeout(timeoutMs);
  const late = () => new AwsCredentialsError(`${named} gave no answer within ${timeoutMs / 1000} s ${purpose}`);
  let response: Response;
  try {
    response = await fetchFor(env)(url, { ...init, signal, redirect: "error" });
  } catch (error) {
    if (signal.aborted) throw late();
    const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
    throw new AwsCredentialsError(`could not reach ${named} ${purpose}: ${cause}`);
  }
  try {
    const { text, more } = await leadingText(response, MAX_REPLY_BYTES);
    if (more) throw new AwsCredentialsError(`${named} answered ${purpose} with more than ${MAX_REPLY_BYTES / 1024} KiB, which is no answer with keys`);
    return { status: response.status, ok: response.ok, headers: response.headers, text };
  } catch (error) {
    if (error instanceof AwsCredentialsError) throw error;
    if (signal.aborted) throw late();
    throw new AwsCredentialsError(`the answer of ${named} ${purpose} broke off: ${(error as Error).message}`);
  }
}

