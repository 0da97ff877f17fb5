import { test } from "node:test";
import assert from "node:assert/strict";
import { CAPABILITIES } from "../manifest.ts";
import { OPERATION_ROUTES, unroutedWhy } from "./claimed-routes.ts";

test("every operation the manifest claims has a route known to the suite's route check", () => {
  for (const capability of Object.values(CAPABILITIES)) {
    for (const operation of capability.operations) assert.ok(OPERATION_ROUTES[operation], `${operation} has no entry in OPERATION_ROUTES`);
  }
});

test("an operation is routed only by a route of its method and path, not the catch-all, and not one listed as not implemented", () => {
  const routes = [
    { method: "ALL", path: "/v1/*" },
    { method: "GET", path: "/v1/harnesses/:harnessId/files/:path{[\\s\\S]+}" },
    { method: "PUT", path: "/v1/harnesses/:harnessId/sessions/:sessionId" },
  ];
  assert.equal(unroutedWhy("files.read", routes), undefined);
  assert.match(unroutedWhy("files.write", routes)!, /no route answers PUT \/v1\/harnesses\/harness\/files\/src\/a\.txt/);
  assert.match(unroutedWhy("sessions.update", routes)!, /no route answers PATCH/);
  assert.match(unroutedWhy("harnesses.teleport", routes)!, /no route is known/);
});
