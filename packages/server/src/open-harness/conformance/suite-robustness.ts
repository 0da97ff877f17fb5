// The suite's robustness tests, which check the golden rule: bad input never loses or changes what is
// stored, and the server keeps serving. Each sends bad input (a body that is no JSON, unknown ids,
// fields too large or of the wrong type, a path leading out), expects a 4xx whose error names the
// problem, then reads back what was stored before it and asks the health check. A failure of one of
// them is a golden-rule violation, unless it failed making what it needed first (SetupFailure).
import { ensure, expectStatus, saidIn, setUp, type Answer, type LoopbackApi } from "./client.ts";
import { agentDescription, makeAgent, removeAgent } from "./suite-config.ts";
import { PROBE_TEXT, readProbe, writeProbe } from "./suite-files.ts";
import type { ConformanceTest } from "./types.ts";

/** `answer` must be a refusal (4xx, not a 5xx nor a success) whose message matches `names`. */
function refused(answer: Answer, names: RegExp, what: string): void {
  ensure(answer.status >= 400 && answer.status < 500, `${what}: ${answer.method} ${answer.path} answered ${answer.status}, not a 4xx refusal: ${saidIn(answer)}`);
  const message = answer.json?.error?.message;
  ensure(typeof message === "string" && names.test(message), `${what}: the ${answer.status} refusal does not name the problem (${names}): ${saidIn(answer)}`);
}

async function sessionName(api: LoopbackApi, sessionId: string): Promise<unknown> {
  return expectStatus(await api.call("GET", `/sessions/${sessionId}`), 200).json?.session?.name;
}

async function stillServing(api: LoopbackApi): Promise<void> {
  const health = expectStatus(await api.call("GET", "/health"), 200).json;
  ensure(health?.status === "healthy", `the server no longer answers healthy after the bad input: ${JSON.stringify(health).slice(0, 200)}`);
}

const MiB = 1024 * 1024;

export const ROBUSTNESS_TESTS: ConformanceTest[] = [
  {
    id: "robustness.not-json",
    name: "a body that is not JSON is refused naming it; the session is kept as it was",
    category: "robustness",
    async run({ api, sessionId }) {
      const before = await sessionName(api, sessionId);
      const answer = await api.call("PATCH", `/sessions/${sessionId}`, { body: '{"name": "half', headers: { "content-type": "application/json" } });
      refused(answer, /JSON/i, "a body that is not JSON");
      const after = await sessionName(api, sessionId);
      ensure(after === before, `the session's name changed from ${JSON.stringify(before)} to ${JSON.stringify(after)}`);
      await stillServing(api);
    },
  },
  {
    id: "robustness.wrong-type",
    name: "fields of the wrong type are refused naming the field; what they would change is kept",
    category: "robustness",
    writesWorkspace: true,
    async run({ api, sessionId, q }) {
      const before = await sessionName(api, sessionId);
      refused(await api.call("PATCH", `/sessions/${sessionId}`, { json: { name: 42 } }), /name/, "a session name that is a number");
      ensure((await sessionName(api, sessionId)) === before, "the session's name changed after a refused rename");
      await setUp("make an agent", () => makeAgent(api, q, "Kept as it is"));
      try {
        refused(await api.call("PATCH", `/agents/conformance-probe${q}`, { json: { description: ["not", "text"] } }), /description/, "an agent description that is a list");
        const kept = await agentDescription(api, q);
        ensure(kept === "Kept as it is", `the agent's description changed to ${JSON.stringify(kept)} after a refused change`);
      } finally {
        await removeAgent(api, q);
      }
      await stillServing(api);
    },
  },
  {
    id: "robustness.oversize",
    name: "fields too large are refused naming the limit; what they would replace is kept",
    category: "robustness",
    writesWorkspace: true,
    async run({ api, sessionId, q }) {
      const before = await sessionName(api, sessionId);
      refused(await api.call("PATCH", `/sessions/${sessionId}`, { json: { name: "n".repeat(1000) } }), /name.*at most/, "a session name of 1000 characters");
      ensure((await sessionName(api, sessionId)) === before, "the session's name changed after a refused rename");
      await setUp("write a file", () => writeProbe(api, q, "conformance/kept.txt"));
      const answer = await api.call("PUT", `/files/conformance/kept.txt${q}`, { body: new Uint8Array(10 * MiB + 1) });
      refused(answer, /MiB/, "a file over the write limit");
      ensure(answer.status === 413, `a file over the write limit answered ${answer.status}, not 413`);
      const kept = await readProbe(api, q, "conformance/kept.txt");
      ensure(kept === PROBE_TEXT, "the file was changed by a refused write over the limit");
      await stillServing(api);
    },
  },
  {
    id: "robustness.unknown-ids",
    name: "unknown ids are 404 naming them, and nothing is made for them",
    category: "robustness",
    async run({ api, q }) {
      const ghost = "conformance-no-such-session";
      refused(await api.call("GET", `/sessions/${ghost}`), new RegExp(ghost), "an unknown session");
      refused(await api.call("PUT", `/files/conformance/ghost.txt?session_id=${ghost}`, { body: "x" }), new RegExp(ghost), "a write in an unknown session");
      expectStatus(await api.call("GET", `/sessions/${ghost}`), 404);
      refused(await api.call("GET", `/agents/conformance-no-such-agent${q}`), /conformance-no-such-agent/, "an unknown agent");
      refused(await api.call("DELETE", `/skills/conformance-no-such-skill${q}`), /conformance-no-such-skill/, "an unknown skill");
      await stillServing(api);
    },
  },
  {
    id: "robustness.path-escape",
    name: "a path leading out of the workspace is refused naming it; the workspace's files are kept",
    category: "robustness",
    writesWorkspace: true,
    async run({ api, q }) {
      await setUp("write a file", () => writeProbe(api, q, "conformance/inside.txt"));
      refused(await api.call("PUT", `/files/conformance/..%2F..%2Fescaped.txt${q}`, { body: "out" }), /\.\./, "a path with .. segments");
      refused(await api.call("DELETE", `/files/..%2F..%2Fconformance${q}`), /\.\./, "a delete leading out");
      ensure((await readProbe(api, q, "conformance/inside.txt")) === PROBE_TEXT, "a file of the workspace changed after refused writes");
      await stillServing(api);
    },
  },
];
