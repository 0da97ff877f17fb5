// What the Bash sandbox adds to a command: the Bash tool running `true` inside bubblewrap (through
// the sandbox runtime, proxies and all), against the same tool running it directly. Undefined where
// the sandbox cannot run.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bashTool, sandboxPolicy, sandboxUnavailable, stopSandbox, type SandboxPolicy } from "@harness/agent";
import { median, now } from "./lib.ts";

export async function measureSandbox(runs: number): Promise<{ sandboxedMs: number; directMs: number } | { unavailable: string }> {
  const unavailable = await sandboxUnavailable();
  if (unavailable) return { unavailable };
  const workspace = await mkdtemp(join(tmpdir(), "harness-bench-sandbox-"));
  try {
    const policy = sandboxPolicy({ enabled: true }, { cwd: workspace, home: workspace, projectRoot: workspace, additionalDirectories: [], allowRules: [], denyRules: [] });
    const time = async (sandbox: SandboxPolicy | undefined) => {
      const ctx = { cwd: workspace, signal: new AbortController().signal, toolUseId: "bench", ...(sandbox && { sandbox }) };
      const started = now();
      const out = await bashTool.execute({ command: "true" }, ctx);
      if (out.isError) throw new Error(`the command failed: ${JSON.stringify(out.content)}`);
      return now() - started;
    };
    // The first sandboxed command starts the proxies: left out, as a process pays it once.
    await time(policy);
    const sandboxed: number[] = [];
    const direct: number[] = [];
    for (let i = 0; i < runs; i++) {
      sandboxed.push(await time(policy));
      direct.push(await time(undefined));
    }
    return { sandboxedMs: median(sandboxed), directMs: median(direct) };
  } finally {
    await stopSandbox();
    await rm(workspace, { recursive: true, force: true });
  }
}

// Alone: `bash scripts/node.sh bench/sandbox.ts [runs]`.
if (import.meta.main) {
  const figures = await measureSandbox(Number(process.argv[2] ?? 21));
  if ("unavailable" in figures) console.log(`the sandbox cannot run here: ${figures.unavailable}`);
  else console.log(`Bash \`true\`: in the sandbox ${figures.sandboxedMs.toFixed(1)} ms, outside it ${figures.directMs.toFixed(1)} ms (median), added ${(figures.sandboxedMs - figures.directMs).toFixed(1)} ms`);
}
