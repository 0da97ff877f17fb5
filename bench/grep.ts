// Grep over a large tree (this repository's node_modules) through the agent's Grep tool, against
// running ripgrep directly with equivalent arguments. Both list matching files.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { rgPath } from "@vscode/ripgrep";
import { grepTool } from "@harness/agent";
import { median, now } from "./lib.ts";

const tree = fileURLToPath(new URL("../node_modules", import.meta.url));

function rgDirect(pattern: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(rgPath, ["--no-config", "--hidden", "--files-with-matches", "--no-messages", "--regexp", pattern, "--", tree], {
      stdio: ["ignore", "pipe", "ignore"],
    });
    let lines = 0;
    child.stdout.on("data", (chunk: Buffer) => {
      for (const byte of chunk) if (byte === 10) lines++;
    });
    child.once("error", reject);
    child.once("close", () => resolve(lines));
  });
}

async function viaTool(pattern: string): Promise<string> {
  const output = await grepTool.execute(
    { pattern, path: tree, output_mode: "files_with_matches", head_limit: 0 },
    { cwd: tree, signal: new AbortController().signal, toolUseId: "bench" },
  );
  return output.content;
}

export async function measureGrep(runs: number, pattern = "createServer\\(") {
  await viaTool(pattern);
  await rgDirect(pattern);
  const tool: number[] = [];
  const direct: number[] = [];
  let files = 0;
  for (let i = 0; i < runs; i++) {
    let t = now();
    await viaTool(pattern);
    tool.push(now() - t);
    t = now();
    files = await rgDirect(pattern);
    direct.push(now() - t);
  }
  return { toolMs: median(tool), rgMs: median(direct), files };
}
