// Shared by the registry's route tests: its routes on an app of their own, over a real database.
import { join } from "node:path";
import { Hono } from "hono";
import { tokenUsers } from "../auth/auth.ts";
import { openSqliteDatabase } from "../sqlite/store.ts";
import { testDir } from "../test-helpers.ts";
import { H, handle, harnessOf, type OpenHarness } from "./common.ts";
import { mountHarnessRoutes } from "./routes-harnesses.ts";

/** The registry's routes on an app of their own, over a database in a test directory; a request with
 * x-test-user acts as that person's own token would (HARNESS_TOKENS_FILE). */
export async function registryApp(t: { after(fn: () => unknown): void }) {
  const db = openSqliteDatabase(join(await testDir(t), "harness.db"));
  t.after(() => db.close());
  const app = new Hono();
  app.use("*", async (c, next) => {
    const user = c.req.header("x-test-user");
    if (user !== undefined) tokenUsers.set(c.req.raw, user);
    await next();
  });
  const oh = { app, version: "1.2.3", startedAt: "2026-01-01T00:00:00.000Z", stopping: () => undefined, modelEnv: {}, harnesses: db.registeredHarnesses } as unknown as OpenHarness;
  mountHarnessRoutes(oh);
  // A route of another domain, as the server's others are mounted after the registry's.
  app.get(`${H}/agents`, handle((c) => (harnessOf(c), c.json({ data: [] }))));
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const init: RequestInit = { method, headers: { "content-type": "application/json", ...headers } };
    if (body !== undefined) init.body = typeof body === "string" ? body : JSON.stringify(body);
    const response = await app.request(`/v1${path}`, init);
    const text = await response.text();
    return { status: response.status, json: text ? JSON.parse(text) : undefined };
  };
  return { app, db, call };
}

export const ACME = {
  id: "acme-cloud",
  name: "Acme Cloud",
  vendor: "Acme",
  description: "Acme's hosted agents",
  execution_type: "hosted",
  config: { base_url: "https://agents.acme.example/v1" },
};

