// Shared by the e2e-commands tests: a real `harness serve` (with its real runner processes) on a
// temp data dir, a fake Anthropic server behind it, and minimal clients.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MinimalClient, startFakeAnthropic, startHarnessServer, type FakeAnthropic, type FakeAnthropicOptions, type HarnessProcess, type MinimalState } from "@harness/test-utils";

export type Harness = {
  fake: FakeAnthropic;
  server: HarnessProcess;
  dataDir: string;
  env: Record<string, string>;
  /** The workspace of a session. */
  workspace(userId: string, sessionId: string): string;
  connect(sessionId: string, userId?: string): Promise<MinimalClient>;
  close(): Promise<void>;
};

/** `extraEnv`: more of the server's environment (a test's switches). */
export async function startHarness(fakeOptions: FakeAnthropicOptions = {}, extraEnv: Record<string, string> = {}): Promise<Harness> {
  const dataDir = await mkdtemp(join(tmpdir(), "harness-commands-"));
  const fake = await startFakeAnthropic(fakeOptions);
  const env = { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake.url, HARNESS_RETRY_BASE_MS: "10", HARNESS_RUNNER_IDLE_MS: "60000", ...extraEnv };
  const server = await startHarnessServer({ dataDir, env });
  const harness: Harness = {
    fake,
    server,
    dataDir,
    env,
    workspace: (userId, sessionId) => join(dataDir, "workspaces", userId, sessionId),
    async connect(sessionId, userId = "alice") {
      const client = await MinimalClient.connect(harness.server.url, { userId, sessionId });
      await client.waitForState(() => true, 10_000, "the first snapshot");
      return client;
    },
    async close() {
      await harness.server.stop();
      await fake.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return harness;
}

export const idle = (s: MinimalState) => s.status === "idle" && s.messages.length > 0 && s.messages.at(-1)!.status !== "running";

/** The text of every user turn of a recorded model request. */
export function userTexts(body: { messages: { role: string; content: unknown }[] }): string {
  return JSON.stringify(body.messages.filter((m) => m.role === "user").map((m) => m.content));
}
