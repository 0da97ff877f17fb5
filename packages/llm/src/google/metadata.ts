// The metadata server's token (Compute Engine, GKE, Cloud Run, …): Application Default Credentials'
// last resort when no credentials file is found. Its host is GCE_METADATA_IP, else
// GCE_METADATA_HOST, else Google's fixed address, as google-auth-library has it. A machine without
// one must fail fast, so the connection gets a few seconds; the answer, once connected, longer (GKE's
// workload identity may take some seconds for a first token).
import http from "node:http";
import { checkedToken, GoogleAuthError } from "./auth-error.ts";
import { MAX_REPLY_BYTES, type Kept } from "./reply.ts";

type Env = Readonly<Record<string, string | undefined>>;

const DEFAULT_HOST = "169.254.169.254";
const TOKEN_PATH = "/computeMetadata/v1/instance/service-accounts/default/token";
const CONNECT_MS = 3_000;
const ANSWER_MS = 30_000;

/** Where the metadata server is asked, and the words that name it. */
export function metadataServer(env: Env): { url: string; named: string } {
  const [variable, given] = env.GCE_METADATA_IP?.trim() ? ["GCE_METADATA_IP", env.GCE_METADATA_IP.trim()] : env.GCE_METADATA_HOST?.trim() ? ["GCE_METADATA_HOST", env.GCE_METADATA_HOST.trim()] : [undefined, DEFAULT_HOST];
  let url: URL;
  try {
    url = new URL(TOKEN_PATH, /^https?:\/\//.test(given) ? given : `http://${given}`);
  } catch {
    throw new GoogleAuthError(`${variable} must be a host (and port) of a metadata server, got ${JSON.stringify(given)}`);
  }
  if (url.protocol !== "http:") throw new GoogleAuthError(`${variable} must name an http metadata server, got ${JSON.stringify(given)}`);
  return { url: url.href, named: variable ? `${given} (${variable})` : `${given} (Google's metadata address)` };
}

/** The default service account's token, or undefined when no metadata server answered (nothing
 * connected in time, or the host is unknown). Rejects with a GoogleAuthError when one answered
 * without a token. */
export async function metadataToken(server: { url: string; named: string }, now: () => number): Promise<Kept | undefined> {
  const host = server.named.replace(/ \(.*\)$/, "");
  const answer = await get(server.url);
  if (answer === undefined) return undefined;
  const failed = (why: string, retryable = false) => new GoogleAuthError(`the metadata server at ${host} gave no Google access token: ${why}`, retryable);
  if (answer.failure) throw failed(answer.failure, true);
  if (answer.flavor !== "Google") throw failed("its answer has no Metadata-Flavor: Google header, so it is no metadata server");
  if (answer.more) throw failed(`it answered with more than ${MAX_REPLY_BYTES / 1024} KiB, which is no token reply`);
  if (answer.status < 200 || answer.status > 299) throw failed(`it answered ${answer.status}: ${answer.text.slice(0, 200)}`, answer.status >= 500 || answer.status === 429);
  let body: { access_token?: unknown; expires_in?: unknown } = {};
  try {
    body = JSON.parse(answer.text);
  } catch {
    // Said below.
  }
  if (typeof body.access_token !== "string" || body.access_token === "") throw failed("its answer has no access_token");
  checkedToken(body.access_token, `the access_token of the metadata server at ${host}`);
  const seconds = typeof body.expires_in === "number" && body.expires_in > 0 ? body.expires_in : 3600;
  return { token: body.access_token, expires: now() + seconds * 1000 };
}

type Answer = { status: number; flavor?: string; text: string; more: boolean; failure?: string };

/** undefined: nothing answered at all. `failure`: the answer broke off or took too long. */
function get(url: string): Promise<Answer | undefined> {
  return new Promise((resolve) => {
    let connected = false;
    const req = http.get(url, { headers: { "metadata-flavor": "Google" }, signal: AbortSignal.timeout(ANSWER_MS) });
    const connectTimer = setTimeout(() => connected || req.destroy(), CONNECT_MS);
    req.on("socket", (socket) => {
      if (!socket.connecting) connected = true;
      else socket.once("connect", () => (connected = true));
    });
    req.on("error", (error) => {
      clearTimeout(connectTimer);
      resolve(connected ? { status: 0, text: "", more: false, failure: `the request broke off: ${error.message}` } : undefined);
    });
    req.on("response", (res) => {
      clearTimeout(connectTimer);
      const chunks: Buffer[] = [];
      let length = 0;
      const flavor = res.headers["metadata-flavor"];
      const done = (more: boolean) => resolve({ status: res.statusCode ?? 0, flavor: typeof flavor === "string" ? flavor : undefined, text: Buffer.concat(chunks).toString("utf8"), more });
      res.on("data", (chunk: Buffer) => {
        if (length + chunk.length > MAX_REPLY_BYTES) {
          res.destroy();
          return done(true);
        }
        length += chunk.length;
        chunks.push(chunk);
      });
      res.on("end", () => done(false));
      res.on("error", (error) => resolve({ status: res.statusCode ?? 0, text: "", more: false, failure: `its answer broke off: ${error.message}` }));
    });
  });
}
