// AWS Signature Version 4 for one HTTP request, with node:crypto: the canonical request (method,
// path, sorted query, signed headers, payload hash), the string to sign over it, and the HMAC chain
// from the secret key down to the day, region and service.
import { createHash, createHmac } from "node:crypto";

export type AwsCredentials = { accessKeyId: string; secretAccessKey: string; sessionToken?: string };

export type SigningInput = {
  method: string;
  /** As it goes on the wire: its path already percent-encoded. */
  url: URL;
  /** The headers to sign, host and x-amz-date among them; names in any case. */
  headers: Record<string, string>;
  /** Hex SHA-256 of the body. */
  payloadHash: string;
};

export type Scope = { region: string; service: string; /** "20150830T123600Z" */ amzDate: string };

export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** "20150830T123600Z" for `date`. */
export function amzDate(date: Date): string {
  return date.toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");
}

/** The Authorization header's value for `input`. */
export function authorization(input: SigningInput, credentials: AwsCredentials, scope: Scope): string {
  const headers = Object.entries(input.headers)
    .map(([name, value]) => [name.toLowerCase(), value.trim().replace(/\s+/g, " ")] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const signedHeaders = headers.map(([name]) => name).join(";");
  const canonical = [
    input.method.toUpperCase(),
    canonicalPath(input.url.pathname),
    canonicalQuery(input.url.searchParams),
    ...headers.map(([name, value]) => `${name}:${value}`),
    "",
    signedHeaders,
    input.payloadHash,
  ].join("\n");
  const day = scope.amzDate.slice(0, 8);
  const credentialScope = `${day}/${scope.region}/${scope.service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", scope.amzDate, credentialScope, sha256Hex(canonical)].join("\n");
  let key: Buffer = hmac(`AWS4${credentials.secretAccessKey}`, day);
  for (const part of [scope.region, scope.service, "aws4_request"]) key = hmac(key, part);
  const signature = createHmac("sha256", key).update(stringToSign).digest("hex");
  return `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${credentialScope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
}

/** The headers that sign a request to `url` with `body` for `service`: x-amz-date, the session
 * token when there is one, and authorization over them and host. */
export function signatureHeaders(method: string, url: URL, body: string, credentials: AwsCredentials, scope: { region: string; service: string }, now = new Date()): Record<string, string> {
  const date = amzDate(now);
  const added: Record<string, string> = { "x-amz-date": date };
  if (credentials.sessionToken) added["x-amz-security-token"] = credentials.sessionToken;
  const signed = authorization({ method, url, headers: { host: url.host, ...added }, payloadHash: sha256Hex(body) }, credentials, { ...scope, amzDate: date });
  return { ...added, authorization: signed };
}

/** Each segment of the path as sent, encoded once more, as the AWS SDKs sign for every service but
 * S3 (a model id's ":" travels as %3A and is signed as %253A). */
function canonicalPath(path: string): string {
  return path.split("/").map(awsEncode).join("/") || "/";
}

function canonicalQuery(params: URLSearchParams): string {
  return [...params]
    .map(([name, value]) => [awsEncode(name), awsEncode(value)] as const)
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join("&");
}

/** RFC 3986 encoding: everything but A-Z a-z 0-9 - _ . ~ */
function awsEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac("sha256", key).update(data).digest();
}
