// The registry's other harnesses: what registering one takes, the spec's Harness shape of one, who may
// change the registry, and the refusal of other domains' operations under a registered harness's id.
// The registry is the server's, shared by its users: every one reads it, the administrator changes it.
import type { Context } from "hono";
import { z } from "zod";
import { tokenUsers } from "../auth/auth.ts";
import type { HarnessConfig, RegisteredHarness, RegisteredHarnessStore } from "../sqlite/registered-harnesses.ts";
import { ApiError } from "./errors.ts";
import { HARNESS_ID } from "./manifest.ts";

/** At most this many harnesses are registered besides this one. */
export const MAX_REGISTERED = 1000;

export const STATUSES = ["active", "beta", "coming_soon", "maintenance", "deprecated"] as const;
export const EXECUTION_TYPES = ["hosted", "sdk", "ide"] as const;

const text = (max: number) => z.string().trim().min(1, "must not be empty").max(max, `must be at most ${max} characters`);

const HarnessId = z
  .string()
  .max(100, "must be at most 100 characters")
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, "must be kebab-case: lowercase letters and digits in words joined by single hyphens (such as acme-cloud)");

/** Why `value` is no base URL of a harness's API, or undefined when it is one. Any host is taken:
 * only the administrator registers harnesses, and one on the server's own network is common. */
function baseUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "must be an absolute http(s) URL (such as https://agents.example.com/v1)";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return `must be an http(s) URL, not ${url.protocol.slice(0, -1)}`;
  if (url.username !== "" || url.password !== "") return "must not carry credentials (user:password@)";
  if (url.search !== "" || url.hash !== "") return "must have no query (?…) or fragment (#…): the API's paths are added to it";
  return undefined;
}

const BaseUrl = z
  .string()
  .max(2000, "must be at most 2000 characters")
  .superRefine((value, ctx) => {
    const problem = baseUrlProblem(value);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  })
  .transform((value) => value.replace(/\/+$/, ""));

const AbsolutePath = z
  .string()
  .max(4096, "must be at most 4096 characters")
  .refine((value) => !value.includes("\0"), "must not contain a NUL character")
  .refine((value) => value.startsWith("/"), "must be an absolute path on the server's machine");

const Config = z.strictObject({ base_url: BaseUrl.optional(), binary_path: AbsolutePath.optional(), skills_path: AbsolutePath.optional() });
/** A config in part: a key given null is dropped. */
const ConfigChange = z.strictObject({ base_url: BaseUrl.nullable().optional(), binary_path: AbsolutePath.nullable().optional(), skills_path: AbsolutePath.nullable().optional() });

export const RegisterBody = z.strictObject({
  id: HarnessId,
  name: text(100),
  vendor: text(100),
  description: text(1000),
  execution_type: z.enum(EXECUTION_TYPES),
  config: Config.optional(),
});

export const UpdateBody = z.strictObject({
  name: text(100).optional(),
  description: text(1000).optional(),
  config: ConfigChange.optional(),
  status: z.enum(STATUSES).optional(),
});

/** `config` with `change` applied: keys given a value take it, keys given null go. */
export function changedConfig(config: HarnessConfig, change: z.infer<typeof ConfigChange>): HarnessConfig {
  const next: Record<string, string> = { ...config };
  for (const [key, value] of Object.entries(change)) {
    if (value === null) delete next[key];
    else if (value !== undefined) next[key] = value;
  }
  return next;
}

/** A registered harness in the spec's Harness shape, with its config and (once known) version. */
export function harnessShape(h: RegisteredHarness) {
  return {
    id: h.id,
    name: h.name,
    vendor: h.vendor,
    description: h.description,
    execution_type: h.executionType,
    status: h.status,
    capabilities: h.capabilities ?? {},
    config: h.config,
    created_at: h.createdAt,
    updated_at: h.updatedAt,
    ...(h.version !== undefined && { version: h.version }),
  };
}

/** Refuses a change of the registry by a person's own token (HARNESS_TOKENS_FILE): the registry is
 * every user's, changed by the holder of the administrator's (HARNESS_TOKEN), or by anyone on a
 * server without tokens. */
export function refuseUnlessAdministrator(c: Context, operation: string): void {
  const user = tokenUsers.get(c.req.raw);
  if (user !== undefined) {
    throw new ApiError(403, "forbidden", `the harness registry is the server's, shared by its users: it is changed with the administrator's token (HARNESS_TOKEN), not ${user}'s own`, operation);
  }
}

/** Refuses a change of this server's own harness. */
export function refuseOwnHarness(id: string, operation: string): void {
  if (id === HARNESS_ID) throw new ApiError(403, "forbidden", `"${HARNESS_ID}" is this server's own harness: it is not changed or unregistered over the API (its settings are the server's configuration)`, operation);
}

/** The registered harness `id`, or a 404. */
export function registeredOf(store: RegisteredHarnessStore, id: string): RegisteredHarness {
  const found = store.get(id);
  if (!found) throw new ApiError(404, "harness_not_found", `no harness "${id}" is registered (see GET /v1/harnesses)`);
  return found;
}

/** Why an operation of another domain under registered harness `h` is not served here. */
export function servedElsewhere(h: RegisteredHarness): ApiError {
  const where =
    h.executionType === "hosted"
      ? h.config.base_url !== undefined
        ? `send it to its own API at ${h.config.base_url}`
        : "it has no config.base_url to send it to"
      : `it is an ${h.executionType} harness, run on its own${h.config.binary_path !== undefined ? ` (${h.config.binary_path})` : ""}`;
  return new ApiError(
    421,
    "misdirected_request",
    `harness "${h.id}" is registered here, but this server serves only its registry entry (get, update, unregister, capabilities, health), not its other operations: ${where}`,
  );
}
