// The suite's harness and sessions tests: the registry's view of this harness, and the life of a
// session (made, read, listed, deleted).
import { CAPABILITIES } from "../manifest.ts";
import { ensure, expectStatus, type LoopbackApi } from "./client.ts";
import { unroutedWhy } from "./claimed-routes.ts";
import type { ConformanceTest } from "./types.ts";

/** Whether the user's sessions list `sessionId`, read page by page. */
export async function listsSession(api: LoopbackApi, sessionId: string): Promise<boolean> {
  for (let offset = 0; ; offset += 100) {
    const page = expectStatus(await api.call("GET", `/sessions?limit=100&offset=${offset}`), 200).json;
    ensure(Array.isArray(page?.data), `GET /sessions answered no data list: ${JSON.stringify(page).slice(0, 200)}`);
    if (page.data.some((s: { id?: unknown }) => s.id === sessionId)) return true;
    if (!page.has_more) return false;
  }
}

export const CORE_TESTS: ConformanceTest[] = [
  {
    id: "harness.get",
    name: "the registry lists this harness and answers it by id",
    category: "harness",
    async run({ api }) {
      const listed = expectStatus(await api.call("GET", "/v1/harnesses"), 200).json;
      ensure(listed?.data?.some((h: { id?: unknown }) => h.id === "harness"), `GET /v1/harnesses does not list "harness": ${JSON.stringify(listed).slice(0, 200)}`);
      const { harness } = expectStatus(await api.call("GET", ""), 200).json ?? {};
      ensure(harness?.id === "harness" && typeof harness.version === "string", `GET /v1/harnesses/harness answered no harness with an id and a version`);
    },
  },
  {
    id: "harness.capabilities",
    name: "the capability manifest gives each domain whether it is supported and its operations",
    category: "harness",
    async run({ api }) {
      const { capabilities } = expectStatus(await api.call("GET", "/capabilities"), 200).json ?? {};
      ensure(capabilities && typeof capabilities === "object", "GET /capabilities answered no capabilities");
      for (const [domain, capability] of Object.entries(capabilities as Record<string, { supported?: unknown; operations?: unknown }>)) {
        ensure(typeof capability.supported === "boolean" && Array.isArray(capability.operations), `capabilities.${domain}: has no supported flag or operations list`);
      }
      ensure(capabilities.conformance?.supported === true, "capabilities.conformance: not said to be supported, though this suite runs");
    },
  },
  {
    id: "harness.health",
    name: "the health check answers healthy",
    category: "harness",
    async run({ api }) {
      const health = expectStatus(await api.call("GET", "/health"), 200).json;
      ensure(health?.status === "healthy", `GET /health answered status ${JSON.stringify(health?.status)}: ${JSON.stringify(health?.checks ?? [])}`);
    },
  },
  {
    id: "harness.registry-guarded",
    name: "this harness cannot be changed or unregistered through the registry, and is still there after trying",
    category: "harness",
    async run({ api }) {
      for (const [method, json] of [["PATCH", { name: "Renamed" }], ["DELETE", undefined]] as const) {
        const answer = expectStatus(await api.call(method, "", json === undefined ? {} : { json }), 403);
        ensure(typeof answer.json?.error?.message === "string", `${method} /v1/harnesses/harness answered 403 without saying why`);
      }
      const { harness } = expectStatus(await api.call("GET", ""), 200).json ?? {};
      ensure(harness?.id === "harness" && harness.name === "Harness", `GET /v1/harnesses/harness answered ${JSON.stringify(harness).slice(0, 200)} after the refused changes`);
    },
  },
  {
    id: "harness.routes",
    name: "every operation the manifest claims supported has a route (by the route table, none called)",
    category: "harness",
    async run({ routes }) {
      const missing: string[] = [];
      for (const capability of Object.values(CAPABILITIES)) {
        if (!capability.supported) continue;
        for (const operation of capability.operations) {
          const why = unroutedWhy(operation, routes);
          if (why) missing.push(why);
        }
      }
      ensure(missing.length === 0, missing.join("; "));
    },
  },
  {
    id: "sessions.create-get",
    name: "a session is made, then read back by its id",
    category: "sessions",
    async run({ api, sessionId }) {
      const { session } = expectStatus(await api.call("GET", `/sessions/${sessionId}`), 200).json ?? {};
      ensure(session?.id === sessionId, `GET /sessions/${sessionId} answered another session: ${JSON.stringify(session)}`);
      ensure(typeof session.name === "string" && session.name.startsWith("conformance"), `the scratch session's name was not kept: ${JSON.stringify(session.name)}`);
    },
  },
  {
    id: "sessions.list",
    name: "the user's sessions list the one made",
    category: "sessions",
    async run({ api, sessionId }) {
      ensure(await listsSession(api, sessionId), `GET /sessions does not list the session ${sessionId} just made`);
    },
  },
  {
    id: "sessions.delete",
    name: "a deleted session is gone: not found, not listed",
    category: "sessions",
    async run({ api }) {
      const made = expectStatus(await api.call("POST", "/sessions", { json: { name: "conformance (deleted by its test)" } }), 201).json;
      const id = made?.session?.id;
      ensure(typeof id === "string", `POST /sessions answered no session id: ${JSON.stringify(made).slice(0, 200)}`);
      try {
        expectStatus(await api.call("DELETE", `/sessions/${id}`), 204);
        const gone = expectStatus(await api.call("GET", `/sessions/${id}`), 404);
        ensure(gone.json?.error?.code === "session_not_found", `GET of a deleted session answered 404 with code ${JSON.stringify(gone.json?.error?.code)}, not session_not_found`);
        ensure(!(await listsSession(api, id)), `GET /sessions still lists the deleted session ${id}`);
      } finally {
        // Whatever the test found, the session it made does not stay.
        await api.call("DELETE", `/sessions/${id}`).catch(() => {});
      }
    },
  },
];
