// The registry's write side: register, update and unregister harnesses other than this server's own.
// Only the administrator changes the registry (harness-registry.ts); a registered harness is not
// served here, so no session or execution of this server is ever one of its, and no credentials are
// kept for it: unregistering forgets its entry, nothing else.
import { bodyOf, check } from "../sessions/api.ts";
import { handle, PREFIX, H, type OpenHarness } from "./common.ts";
import { ApiError } from "./errors.ts";
import { changedConfig, harnessShape, MAX_REGISTERED, RegisterBody, refuseOwnHarness, refuseUnlessAdministrator, registeredOf, UpdateBody } from "./harness-registry.ts";
import { HARNESS_ID } from "./manifest.ts";

export function mountHarnessRegistryRoutes(oh: OpenHarness): void {
  const { app } = oh;
  app.post(
    `${PREFIX}/harnesses`,
    handle(async (c) => {
      const operation = "harnesses.register";
      refuseUnlessAdministrator(c, operation);
      const body = check(RegisterBody, await bodyOf(c));
      if (body.id === HARNESS_ID) throw new ApiError(409, "harness_exists", `"${HARNESS_ID}" is this server's own harness: register another under another id`, operation);
      if (oh.harnesses.count() >= MAX_REGISTERED) throw new ApiError(409, "registry_full", `the registry holds ${MAX_REGISTERED} harnesses, its most: unregister one first`, operation);
      const now = new Date().toISOString();
      const harness = {
        id: body.id,
        name: body.name,
        vendor: body.vendor,
        description: body.description,
        executionType: body.execution_type,
        status: "active" as const,
        config: body.config ?? {},
        createdAt: now,
        updatedAt: now,
      };
      if (!oh.harnesses.add(harness)) throw new ApiError(409, "harness_exists", `harness "${body.id}" is already registered: update it (PATCH /v1/harnesses/${body.id}) or unregister it first`, operation);
      return c.json({ harness: harnessShape(harness) }, 201);
    }),
  );
  app.patch(
    H,
    handle(async (c) => {
      const operation = "harnesses.update";
      const id = c.req.param("harnessId")!;
      refuseUnlessAdministrator(c, operation);
      refuseOwnHarness(id, operation);
      const body = check(UpdateBody, await bodyOf(c));
      const found = registeredOf(oh.harnesses, id);
      const changes = Object.values(body).some((value) => value !== undefined);
      if (!changes) return c.json({ harness: harnessShape(found) });
      const changed = {
        ...found,
        ...(body.name !== undefined && { name: body.name }),
        ...(body.description !== undefined && { description: body.description }),
        ...(body.status !== undefined && { status: body.status }),
        ...(body.config !== undefined && { config: changedConfig(found.config, body.config) }),
        updatedAt: new Date().toISOString(),
      };
      if (!oh.harnesses.replace(changed)) registeredOf(oh.harnesses, id);
      return c.json({ harness: harnessShape(changed) });
    }),
  );
  app.delete(
    H,
    handle((c) => {
      const operation = "harnesses.unregister";
      const id = c.req.param("harnessId")!;
      refuseUnlessAdministrator(c, operation);
      refuseOwnHarness(id, operation);
      if (!oh.harnesses.remove(id)) registeredOf(oh.harnesses, id);
      return c.body(null, 204);
    }),
  );
}
