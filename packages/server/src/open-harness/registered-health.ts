// What this server can find out of a registered harness: a hosted one's health and capability
// manifest, asked of its own API at config.base_url; an sdk or ide one's health, from its files on
// this machine. Every answer says plainly what was checked.
import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import type { RegisteredHarness } from "../sqlite/registered-harnesses.ts";
import { ApiError } from "./errors.ts";
import { askRemote } from "./remote-ask.ts";

/** A request to a registered harness gets no answer after this long. */
export const REMOTE_TIMEOUT_MS = 5000;
/** A health answer is read no further than this; a capability manifest, than MANIFEST_MAX_BYTES. */
export const HEALTH_MAX_BYTES = 64 * 1024;
export const MANIFEST_MAX_BYTES = 1024 * 1024;

type Check = { name: string; status: "pass" | "fail"; latency_ms: number; message?: string };
export type Health = { status: "healthy" | "degraded" | "unhealthy"; latency_ms: number; version?: string; message?: string; checks: Check[] };

const HEALTH_STATUSES = new Set(["healthy", "degraded", "unhealthy"]);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** `h`'s health: asked of it (hosted), or checked on this machine (sdk, ide). */
export async function healthOf(h: RegisteredHarness): Promise<Health> {
  const started = performance.now();
  const health = h.executionType === "hosted" ? await hostedHealth(h) : await localHealth(h);
  return { ...health, latency_ms: Math.round(performance.now() - started) };
}

async function hostedHealth(h: RegisteredHarness): Promise<Omit<Health, "latency_ms">> {
  if (h.config.base_url === undefined) {
    return { status: "degraded", checks: [], message: "no config.base_url: this server cannot ask a hosted harness without its API's address, so nothing of it was checked" };
  }
  const url = `${h.config.base_url}/harnesses/${h.id}/health`;
  const answer = await askRemote(url, { timeoutMs: REMOTE_TIMEOUT_MS, maxBytes: HEALTH_MAX_BYTES });
  const message = `asked of its own API: GET ${url}`;
  if (!answer.answered) return { status: "unhealthy", message, checks: [{ name: "reachable", status: "fail", latency_ms: answer.latencyMs, message: answer.failure }] };
  const checks: Check[] = [{ name: "reachable", status: "pass", latency_ms: answer.latencyMs }];
  const body = answer.json;
  const failure = answer.failure ?? (isObject(body) && HEALTH_STATUSES.has(String(body.status)) ? undefined : `GET ${url} answered no health status (healthy, degraded or unhealthy)`);
  if (failure !== undefined || !isObject(body)) {
    checks.push({ name: "health_endpoint", status: "fail", latency_ms: answer.latencyMs, message: failure });
    return { status: "unhealthy", message, checks };
  }
  checks.push({ name: "health_endpoint", status: "pass", latency_ms: answer.latencyMs });
  const said = String(body.status) as Health["status"];
  const failing = Array.isArray(body.checks) ? body.checks.filter((c) => isObject(c) && c.status === "fail").map((c) => String((c as { name?: unknown }).name)).slice(0, 20) : [];
  checks.push({
    name: "harness",
    status: said === "healthy" ? "pass" : "fail",
    latency_ms: answer.latencyMs,
    ...(said !== "healthy" && { message: `it says it is ${said}${failing.length ? `; failing: ${failing.join(", ")}` : ""}` }),
  });
  return { status: said, message, checks, ...(typeof body.version === "string" && { version: body.version.slice(0, 100) }) };
}

async function localHealth(h: RegisteredHarness): Promise<Omit<Health, "latency_ms">> {
  const checks: Check[] = [];
  if (h.config.binary_path !== undefined) checks.push(await fileCheck("binary_path", h.config.binary_path, "file"));
  if (h.config.skills_path !== undefined) checks.push(await fileCheck("skills_path", h.config.skills_path, "directory"));
  const kind = `an ${h.executionType} harness runs on its own, not through this server or its API`;
  if (checks.length === 0) return { status: "degraded", checks, message: `${kind}; it has no config.binary_path or config.skills_path, so nothing of it was checked` };
  return {
    status: checks.every((c) => c.status === "pass") ? "healthy" : "unhealthy",
    checks,
    message: `${kind}: what was checked is that its ${checks.map((c) => c.name).join(" and ")} ${checks.length > 1 ? "are" : "is"} there on this machine`,
  };
}

/** Whether `path` is there as a `kind` (an executable file, or a readable directory). */
async function fileCheck(name: string, path: string, kind: "file" | "directory"): Promise<Check> {
  const started = performance.now();
  const done = (message?: string): Check => ({ name, status: message === undefined ? "pass" : "fail", latency_ms: Math.round(performance.now() - started), ...(message !== undefined && { message }) });
  try {
    const found = await stat(path);
    if (kind === "file" && !found.isFile()) return done(`${path} is not a file`);
    if (kind === "directory" && !found.isDirectory()) return done(`${path} is not a directory`);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return done(code === "ENOENT" || code === "ENOTDIR" ? `${path} does not exist on this machine` : `${path} cannot be read (${code})`);
  }
  try {
    await access(path, kind === "file" ? constants.X_OK : constants.R_OK | constants.X_OK);
    return done();
  } catch {
    return done(kind === "file" ? `${path} is not executable by the server's user` : `${path} is not readable by the server's user`);
  }
}

/** A hosted harness's capability manifest and version as it answers them now; a 502 naming the
 * harness and why when it does not answer one. */
export async function askCapabilities(h: RegisteredHarness & { config: { base_url: string } }): Promise<{ capabilities: Record<string, unknown>; version?: string }> {
  const url = `${h.config.base_url}/harnesses/${h.id}/capabilities`;
  const answer = await askRemote(url, { timeoutMs: REMOTE_TIMEOUT_MS, maxBytes: MANIFEST_MAX_BYTES });
  const refuse = (why: string) => new ApiError(502, "bad_gateway", `harness "${h.id}" did not answer its capabilities: ${why}`, "harnesses.capabilities");
  if (answer.failure !== undefined) throw refuse(answer.failure);
  const body = (answer as { json: unknown }).json;
  if (!isObject(body) || !isObject(body.capabilities)) throw refuse(`GET ${url} answered no capabilities object`);
  for (const [domain, capability] of Object.entries(body.capabilities)) {
    const ok = isObject(capability) && typeof capability.supported === "boolean" && Array.isArray(capability.operations) && capability.operations.every((o) => typeof o === "string");
    if (!ok) throw refuse(`GET ${url} answered capabilities.${domain} without a supported flag and a list of operations`);
  }
  return { capabilities: body.capabilities, ...(typeof body.version === "string" && { version: body.version.slice(0, 100) }) };
}
