// The registry's read side: this server is its one harness.
import { z } from "zod";
import { bodyOf, check } from "../sessions/api.ts";
import { H, handle, harnessOf, queryOf, PREFIX, refuseUnsupported, type OpenHarness } from "./common.ts";
import { checkCredentials } from "./credentials-check.ts";
import { CAPABILITIES, HARNESS_ID, harnessDescription } from "./manifest.ts";
import { page, PaginationSchema } from "./shapes.ts";

const ListQuery = PaginationSchema.extend({
  status: z.enum(["active", "beta", "coming_soon", "maintenance", "deprecated"]).optional(),
  execution_type: z.enum(["hosted", "sdk", "ide"]).optional(),
}).passthrough();

// The key is optional here: without one, the server's own (which the runs use) is checked.
const ValidateBody = z.strictObject({
  api_key: z.string().trim().min(1, "must not be empty").max(1000, "must be at most 1000 characters").optional(),
  base_url: z.string().optional(),
  store: z.boolean().optional(),
});

/** Whether a request is the health check, which the spec lets anyone ask (auth: optional): it is
 * answered without a token, and says only what the server's state is, never what it holds. A token
 * sent with it is checked as on every route. */
export function isOpenHealthCheck(method: string, pathname: string): boolean {
  return (method === "GET" || method === "HEAD") && /^\/v1\/harnesses\/[^/]+\/health$/.test(pathname);
}

export function mountHarnessRoutes(oh: OpenHarness): void {
  const { app } = oh;
  const harness = () => harnessDescription(oh.version, oh.startedAt);
  app.get(
    `${PREFIX}/harnesses`,
    handle((c) => {
      const query = queryOf(c, ListQuery);
      const all = [harness()].filter((h) => (query.status ?? h.status) === h.status && (query.execution_type ?? h.execution_type) === h.execution_type);
      return c.json(page(all, query));
    }),
  );
  app.get(
    H,
    handle((c) => {
      harnessOf(c);
      return c.json({ harness: harness() });
    }),
  );
  app.get(
    `${H}/capabilities`,
    handle((c) => {
      harnessOf(c);
      return c.json({ harness_id: HARNESS_ID, harness_name: "Harness", version: oh.version, capabilities: CAPABILITIES });
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
  // Open to anyone (see isOpenHealthCheck): what it adds must reveal nothing a token guards.
  app.get(
    `${H}/health`,
    handle((c) => {
      harnessOf(c);
      const started = performance.now();
      const stopping = oh.stopping();
      const check = stopping === undefined ? { name: "server", status: "pass" } : { name: "server", status: "fail", message: stopping };
      return c.json({ status: stopping === undefined ? "healthy" : "unhealthy", latency_ms: Math.round(performance.now() - started), version: oh.version, checks: [check] });
    }),
  );
}
