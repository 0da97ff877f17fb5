// Amazon Bedrock's side of the wire, for the fake Anthropic server's Bedrock route: AWS event-stream
// frames, Bedrock's error bodies, and a SigV4 check written apart from the client's signer (so that
// the two agree only when both follow the specification).
import { createHash, createHmac } from "node:crypto";
import type { ServerResponse } from "node:http";
import { crc32 } from "node:zlib";

/** The keys the fake accepts by default. */
export const FAKE_AWS_KEYS = { accessKeyId: "AKIAFAKEHARNESS00001", secretAccessKey: "fake+secret/key/for+harness+tests0000000" } as const;
/** The Bedrock API key the fake accepts by default (AWS_BEARER_TOKEN_BEDROCK). */
export const FAKE_BEDROCK_API_KEY = "ABSKfake-bedrock-api-key";

export type FakeAwsKeys = { accessKeyId: string; secretAccessKey: string; sessionToken?: string };

/** One event-stream frame with string headers. `damage` flips a byte of the payload after the CRC
 * is computed, as a broken network would. */
export function eventStreamFrame(headers: Record<string, string>, payload: Uint8Array | string, damage = false): Buffer {
  const head = Buffer.concat(
    Object.entries(headers).map(([name, value]) => {
      const n = Buffer.from(name, "utf8");
      const v = Buffer.from(value, "utf8");
      const out = Buffer.alloc(1 + n.length + 1 + 2 + v.length);
      out.writeUInt8(n.length, 0);
      n.copy(out, 1);
      out.writeUInt8(7, 1 + n.length);
      out.writeUInt16BE(v.length, 2 + n.length);
      v.copy(out, 4 + n.length);
      return out;
    }),
  );
  const body = Buffer.from(payload);
  const total = 12 + head.length + body.length + 4;
  const frame = Buffer.alloc(total);
  frame.writeUInt32BE(total, 0);
  frame.writeUInt32BE(head.length, 4);
  frame.writeUInt32BE(crc32(frame.subarray(0, 8)), 8);
  head.copy(frame, 12);
  body.copy(frame, 12 + head.length);
  frame.writeUInt32BE(crc32(frame.subarray(0, total - 4)), total - 4);
  if (damage && body.length > 0) frame[12 + head.length] ^= 0xff;
  return frame;
}

/** A `chunk` event carrying one Messages API event's JSON, as Bedrock sends it. */
export function chunkFrame(eventJson: string): Buffer {
  const payload = JSON.stringify({ bytes: Buffer.from(eventJson, "utf8").toString("base64"), p: "abcdefghij" });
  return eventStreamFrame({ ":event-type": "chunk", ":content-type": "application/json", ":message-type": "event" }, payload);
}

export function exceptionFrame(exception: string, message: string): Buffer {
  return eventStreamFrame({ ":exception-type": exception, ":content-type": "application/json", ":message-type": "exception" }, JSON.stringify({ message }));
}

/** Bedrock's exception for an Anthropic error type, or the type itself when it names one already. */
export function exceptionFor(type: string, stream: boolean): string {
  if (/Exception$/.test(type)) return type;
  const name: Record<string, string> = {
    rate_limit_error: "ThrottlingException",
    overloaded_error: "ServiceUnavailableException",
    api_error: "InternalServerException",
    invalid_request_error: "ValidationException",
    permission_error: "AccessDeniedException",
    authentication_error: "UnrecognizedClientException",
    not_found_error: "ResourceNotFoundException",
  };
  const exception = name[type] ?? "InternalServerException";
  // In a stream, Bedrock names its exceptions in camel case.
  return stream ? exception[0].toLowerCase() + exception.slice(1) : exception;
}

/** A response on which the fake's Anthropic replies are played and that says them as Bedrock does:
 * SSE events become chunk frames (an `error` event an exception frame), a JSON error becomes
 * Bedrock's `{ message }` with x-amzn-errortype. */
export function asBedrock(res: ServerResponse): ServerResponse {
  let sse = false;
  let pending = "";
  let errorHead: { status: number; headers: Record<string, string | number> } | undefined;
  const framesOf = (text: string): Buffer => {
    pending += text;
    const frames: Buffer[] = [];
    let end: number;
    while ((end = pending.indexOf("\n\n")) !== -1) {
      const block = pending.slice(0, end);
      pending = pending.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? "";
      if (event === "ping") continue;
      if (event === "error") {
        const { error } = JSON.parse(data) as { error: { type: string; message: string } };
        frames.push(exceptionFrame(exceptionFor(error.type, true), error.message));
      } else frames.push(chunkFrame(data));
    }
    return Buffer.concat(frames);
  };
  const overrides = {
    writeHead(status: number, headers: Record<string, string | number> = {}) {
      if (String(headers["content-type"]).startsWith("text/event-stream")) {
        sse = true;
        res.writeHead(200, { "content-type": "application/vnd.amazon.eventstream", "x-amzn-requestid": String(headers["request-id"] ?? "fake") });
      } else if (status >= 400) errorHead = { status, headers };
      else res.writeHead(status, headers);
      return proxy;
    },
    write(chunk: string) {
      return sse ? res.write(framesOf(chunk)) : res.write(chunk);
    },
    end(chunk?: string) {
      if (sse) return res.end(chunk === undefined ? undefined : framesOf(chunk));
      if (errorHead && chunk !== undefined) {
        const { error } = JSON.parse(chunk) as { error: { type: string; message: string } };
        const { "content-length": _length, ...rest } = errorHead.headers;
        const body = JSON.stringify({ message: error.message });
        res.writeHead(errorHead.status, { ...rest, "content-type": "application/json", "content-length": Buffer.byteLength(body), "x-amzn-errortype": `${exceptionFor(error.type, false)}:http://internal.amazon.com/coral/com.amazon.bedrock/` });
        return res.end(body);
      }
      return res.end(chunk);
    },
  };
  const proxy: ServerResponse = new Proxy(res, {
    get(target, name) {
      if (name in overrides) return overrides[name as keyof typeof overrides];
      const value = Reflect.get(target, name, target) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return proxy;
}

/** What is wrong with a request's SigV4 signature (undefined: it is right) for one of `keys`,
 * scoped to `service`. `rawUrl` is the path and query as received. */
export function signatureProblem(method: string, rawUrl: string, headers: Record<string, string | string[] | undefined>, body: Buffer, keys: readonly FakeAwsKeys[], service = "bedrock"): string | undefined {
  const auth = String(headers.authorization ?? "");
  const parsed = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(auth);
  if (!parsed) return `malformed authorization header: ${auth}`;
  const [, keyId, day, region, scoped, signedHeaders, signature] = parsed;
  const key = keys.find((k) => k.accessKeyId === keyId);
  if (!key) return `The security token included in the request is invalid (unknown access key ${keyId})`;
  if (scoped !== service) return `Credential should be scoped to correct service: '${service}', not '${scoped}'`;
  const names = signedHeaders.split(";");
  for (const needed of ["host", "x-amz-date", ...(key.sessionToken ? ["x-amz-security-token"] : [])]) {
    if (!names.includes(needed)) return `${needed} is not signed`;
  }
  if (key.sessionToken && headers["x-amz-security-token"] !== key.sessionToken) return "The security token included in the request is invalid";
  const date = String(headers["x-amz-date"] ?? "");
  if (date.slice(0, 8) !== day) return `the credential's date ${day} is not x-amz-date's ${date}`;
  const [path, query = ""] = rawUrl.split("?");
  const encode = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const canonical = [
    method,
    path.split("/").map(encode).join("/"),
    query.split("&").filter(Boolean).map((pair) => pair.split("=").map((part) => encode(decodeURIComponent(part))).join("=")).sort().join("&"),
    ...names.map((name) => `${name}:${String(headers[name] ?? "").trim()}`),
    "",
    signedHeaders,
    createHash("sha256").update(body).digest("hex"),
  ].join("\n");
  const toSign = ["AWS4-HMAC-SHA256", date, `${day}/${region}/${service}/aws4_request`, createHash("sha256").update(canonical).digest("hex")].join("\n");
  let k: Buffer = createHmac("sha256", `AWS4${key.secretAccessKey}`).update(day).digest();
  for (const part of [region, service, "aws4_request"]) k = createHmac("sha256", k).update(part).digest();
  const expected = createHmac("sha256", k).update(toSign).digest("hex");
  return expected === signature ? undefined : "The request signature we calculated does not match the signature you provided";
}
