// The headline comparison: one scripted 10-turn tool scenario through the runner with the builtin
// backend and with the claude-code backend (the real Claude Code binary), against the same fake
// model. For each: time from the query to the first model request, the median gap between a reply
// and the next request (per-turn overhead), the peak memory of the runner's process tree, and the
// size of the first request.
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { estimateTokens } from "@harness/agent";
import { createRunnerClient } from "@harness/runner/client";
import { claudeCodeRoute, startFakeAnthropic, type RecordedRequest } from "@harness/test-utils";
import { median, now, processParents, sleep, totalRssKiB } from "./lib.ts";

const runnerMain = fileURLToPath(new URL("../packages/runner/src/main.ts", import.meta.url));
const TURNS = 10;

export type BackendFigures = {
  backend: string;
  firstRequestMs: number;
  perTurnMs: number;
  peakMemoryMiB: number;
  firstRequestBytes: number;
  firstRequestTokens: number;
  turns: number;
};

function toolResults(req: RecordedRequest): number {
  let n = 0;
  for (const message of req.body.messages ?? []) {
    if (Array.isArray(message.content)) for (const block of message.content) if (block.type === "tool_result") n++;
  }
  return n;
}

/** Resident memory of a process and all its descendants, in KiB. */
async function treeRssKiB(root: number): Promise<number> {
  const parents = await processParents();
  const inTree = (pid: number): boolean => pid === root || (parents.has(pid) && pid !== 1 && inTree(parents.get(pid)!));
  return totalRssKiB([...parents.keys()].filter(inTree));
}

export async function measureBackend(backend: "builtin" | "claude-code"): Promise<BackendFigures> {
  const root = await mkdtemp(join(tmpdir(), `harness-bench-${backend}-`));
  const replyEnds = new Map<number, number>();
  let mainIndex = 0;
  const fake = await startFakeAnthropic({
    route: claudeCodeRoute,
    respond: (req) => {
      const index = mainIndex++;
      const ended = () => replyEnds.set(index, now());
      if (toolResults(req) >= TURNS) return { textChunks: function* () { yield "All ten steps ran."; ended(); } };
      return {
        textChunks: function* () {
          yield "Next step.";
          ended();
        },
        toolUses: [{ name: "Bash", input: { command: `echo step-${toolResults(req) + 1}`, description: "Print the step" } }],
      };
    },
  });
  const child = spawn(process.execPath, [runnerMain, "--exit-with-stdin"], {
    env: {
      PATH: process.env.PATH,
      HOME: join(root, "home"),
      HARNESS_WORKSPACE: join(root, "workspace"),
      HARNESS_BACKEND: backend,
      ANTHROPIC_BASE_URL: fake.url,
      ANTHROPIC_API_KEY: "bench",
    },
    stdio: ["pipe", "pipe", "ignore"],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout!.once("data", (line) => resolve(JSON.parse(String(line)).url));
      child.once("exit", (code) => reject(new Error(`the ${backend} runner exited with ${code}`)));
    });
    let peak = await treeRssKiB(child.pid!);
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, await treeRssKiB(child.pid!));
        await sleep(25);
      }
    })();
    const started = now();
    const client = createRunnerClient(url);
    let completed = false;
    for await (const event of client.query(
      { prompt: "Run the ten steps.", backend, permissionMode: "bypassPermissions", model: "claude-sonnet-4-6" },
      { signal: AbortSignal.timeout(120_000) },
    )) {
      if (event.type === "run.completed") {
        completed = true;
        // Only Claude Code reports a session id of its own: proof that the backend was used.
        if ((backend === "claude-code") !== (event.sessionId !== undefined)) throw new Error(`the runner did not run the ${backend} backend`);
      }
      if (event.type === "run.error") throw new Error(`${backend} run failed: ${event.message}`);
    }
    sampling = false;
    await sampler;
    if (!completed) throw new Error(`${backend} run did not complete`);
    const requests = fake.requests;
    const gaps: number[] = [];
    for (let i = 1; i < requests.length; i++) {
      const end = replyEnds.get(i - 1);
      if (end !== undefined) gaps.push(requests[i].at - end);
    }
    const first = requests[0].body;
    const firstJson = JSON.stringify(first);
    return {
      backend,
      firstRequestMs: requests[0].at - started,
      perTurnMs: median(gaps),
      peakMemoryMiB: peak / 1024,
      firstRequestBytes: Buffer.byteLength(firstJson),
      firstRequestTokens: estimateTokens(JSON.stringify({ system: first.system, tools: first.tools, messages: first.messages })),
      turns: requests.length,
    };
  } finally {
    child.stdin!.end();
    child.kill("SIGTERM");
    await fake.close();
    await rm(root, { recursive: true, force: true });
  }
}
