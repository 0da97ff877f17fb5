// The registry's read side: this server's own harness (id "harness"), and those the administrator
// registered (harness-registry.ts), of which this server answers the registry entry only.
import type { Context, Next } from "hono";
import { z } from "zod";
import { bodyOf, check } from "../sessions/api.ts";
import type { RegisteredHarness } from "../sqlite/registered-harnesses.ts";
import { H, handle, harnessOf, queryOf, PREFIX, refuseUnsupported, type OpenHarness } from "./common.ts";
import { checkCredentials } from "./credentials-check.ts";
import { answerError } from "./errors.ts";
import { EXECUTION_TYPES, harnessShape, registeredOf, servedElsewhere, STATUSES } from "./harness-registry.ts";
import { CAPABILITIES, HARNESS_ID, harnessDescription } from "./manifest.ts";
import { askCapabilities, healthOf } from "./registered-health.ts";
import { mountHarnessRegistryRoutes } from "./routes-harness-registry.ts";
import { page, PaginationSchema } from "./shapes.ts";

const ListQuery = PaginationSchema.extend({
  status: z.enum(STATUSES).optional(),
  execution_type: z.enum(EXECUTION_TYPES).optional(),
}).passthrough();

// The key is optional here: without one, the server's own (which the runs use) is checked.
const ValidateBody = z.strictObject({
  api_key: z.string().trim().min(1, "must not be empty").max(1000, "must be at most 1000 characters").optional(),
  base_url: z.string().optional(),
  store: z.boolean().optional(),
});

/** Whether a request is this server's own health check, which the spec lets anyone ask (auth:
 * optional): it is answered without a token, and says only what the server's state is, never what
 * it holds. A token sent with it is checked as on every route. A registered harness's health is
 * not open: asking it makes this server send a request elsewhere. */
export function isOpenHealthCheck(method: string, pathname: string): boolean {
  return (method === "GET" || method === "HEAD") && pathname === `${PREFIX}/harnesses/${HARNESS_ID}/health`;
}

/** The paths under a registered harness's id this server answers: its registry entry. */
const ENTRY_PATHS = new Set(["", "/capabilities", "/health"]);

export function mountHarnessRoutes(oh: OpenHarness): void {
  const { app } = oh;
  const harness = () => harnessDescription(oh.version, oh.startedAt);
  /** The registered harness the path names, or undefined for this server's own; a 404 for neither. */
  const named = (c: Context): RegisteredHarness | undefined => {
    const id = c.req.param("harnessId")!;
    return id === HARNESS_ID ? undefined : registeredOf(oh.harnesses, id);
  };
  // First of the API's routes: another domain's operation under a registered harness is not ours.
  app.use(`${H}/*`, async (c: Context, next: Next) => {
    const id = c.req.param("harnessId")!;
    const rest = new URL(c.req.url).pathname.slice(`${PREFIX}/harnesses/`.length + encodeURIComponent(id).length);
    const registered = id === HARNESS_ID || ENTRY_PATHS.has(rest) ? undefined : oh.harnesses.get(id);
    if (registered) return answerError(c, servedElsewhere(registered));
    await next();
  });
  app.get(
    `${PREFIX}/harnesses`,
    handle((c) => {
      const query = queryOf(c, ListQuery);
      const all = [harness(), ...oh.harnesses.list().map(harnessShape)].filter(
        (h) => (query.status ?? h.status) === h.status && (query.execution_type ?? h.execution_type) === h.execution_type,
      );
      return c.json(page(all, query));
    }),
  );
  app.get(
    H,
    handle((c) => {
      const registered = named(c);
      return c.json({ harness: registered ? harnessShape(registered) : harness() });
    }),
  );
  app.get(
    `${H}/capabilities`,
    handle(async (c) => {
      const registered = named(c);
      if (!registered) return c.json({ harness_id: HARNESS_ID, harness_name: "Harness", version: oh.version, capabilities: CAPABILITIES });
      const base = { harness_id: registered.id, harness_name: registered.name };
      const baseUrl = registered.config.base_url;
      if (registered.executionType !== "hosted" || baseUrl === undefined) {
        const why = registered.executionType === "hosted" ? "it has no config.base_url to ask" : `an ${registered.executionType} harness is not asked over the network`;
        return c.json({ ...base, ...(registered.version !== undefined && { version: registered.version }), capabilities: registered.capabilities ?? {}, message: `its capabilities are unknown to this server: ${why}` });
      }
      const asked = await askCapabilities({ ...registered, config: { ...registered.config, base_url: baseUrl } });
      // Kept for its registry entry, unless it changed or went meanwhile.
      const now = oh.harnesses.get(registered.id);
      if (now && now.config.base_url === baseUrl) oh.harnesses.replace({ ...now, capabilities: asked.capabilities, ...(asked.version !== undefined && { version: asked.version }) });
      return c.json({ ...base, ...(asked.version !== undefined && { version: asked.version }), capabilities: asked.capabilities });
    }),
  );
  // Keys are not stored (the server's come from its environment), and no request goes to an address
  // a client names: the check is of the endpoint the runs use.
  app.post(
    `${H}/validate-credentials`,
    handle(async (c) => {
      harnessOf(c);
      const body = check(ValidateBody, await bodyOf(c));
      refuseUnsupported({ ...body, store: body.store === true ? true : undefined }, ["store", "base_url"], "harnesses.validateCredentials");
      return c.json(await checkCredentials(oh.modelEnv, body.api_key));
    }),
  );
  // This server's own is open to anyone (see isOpenHealthCheck): what it adds must reveal nothing a
  // token guards.
  app.get(
    `${H}/health`,
    handle(async (c) => {
      const registered = named(c);
      if (registered) return c.json(await healthOf(registered));
      const started = performance.now();
      const stopping = oh.stopping();
      const check = stopping === undefined ? { name: "server", status: "pass" } : { name: "server", status: "fail", message: stopping };
      return c.json({ status: stopping === undefined ? "healthy" : "unhealthy", latency_ms: Math.round(performance.now() - started), version: oh.version, checks: [check] });
    }),
  );
  mountHarnessRegistryRoutes(oh);
}
