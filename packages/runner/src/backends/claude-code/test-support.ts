// Shared by the claude-code backend's tests: temp directories, the fake model set up for Claude
// Code, and a BackendContext whose steering, configuration and approvals a test drives.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentEvent, RunConfigureBody } from "@harness/protocol";
import { claudeCodeRoute, startFakeAnthropic, type FakeAnthropic, type FakeAnthropicOptions } from "@harness/test-utils";
import type { ApprovalDecision, ApprovalRequest, BackendContext } from "../../backend.ts";
import { findClaudeCodeExecutable } from "./options.ts";

type TestContext = { after(fn: () => unknown): void };

/** A skip reason for tests that need the real binary, or false when it is there. */
export const NO_CLAUDE_CODE = findClaudeCodeExecutable() ? false : "the Claude Code binary (@anthropic-ai/claude-agent-sdk-<platform>) is not installed";

export function tempDirs(t: TestContext): { workspace: string; stateDir: string } {
  const root = mkdtempSync(join(tmpdir(), "harness-cc-"));
  // Claude Code may still be writing its state files for a moment after a run ends (ENOTEMPTY).
  t.after(() => rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));
  const workspace = join(root, "workspace");
  mkdirSync(workspace);
  return { workspace, stateDir: join(root, "state") };
}

export async function fakeForClaudeCode(t: TestContext, options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const fake = await startFakeAnthropic({ route: claudeCodeRoute, ...options });
  t.after(() => fake.close());
  return fake;
}

/** The environment a runner would have, pointing at the fake. */
export function runnerEnvFor(fake: FakeAnthropic, extra: Record<string, string> = {}): Record<string, string | undefined> {
  return { PATH: process.env.PATH, ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: "test", ...extra };
}

export type DrivenContext = {
  ctx: BackendContext;
  events: AgentEvent[];
  /** Resolves with the first event (already emitted or still to come) that matches. */
  waitForEvent(match: (e: AgentEvent) => boolean, timeoutMs?: number): Promise<AgentEvent>;
  steer(message: string): void;
  configure(config: RunConfigureBody): void;
  cancel(): void;
};

export function drivenContext(options: {
  workspace: string;
  stateDir: string;
  requestApproval?: (request: ApprovalRequest) => Promise<ApprovalDecision>;
}): DrivenContext {
  const controller = new AbortController();
  const events: AgentEvent[] = [];
  const watchers = new Set<(e: AgentEvent) => void>();
  const steerListeners = new Set<(m: string) => void>();
  const waiting: string[] = [];
  const configureListeners = new Set<(c: RunConfigureBody) => void>();
  const ctx: BackendContext = {
    signal: controller.signal,
    workspace: options.workspace,
    stateDir: options.stateDir,
    requestApproval: options.requestApproval,
    emit(event) {
      events.push(event);
      for (const w of watchers) w(event);
    },
    steering: {
      take: () => waiting.splice(0),
      subscribe(listener) {
        steerListeners.add(listener);
        return () => steerListeners.delete(listener);
      },
    },
    onConfigure(listener) {
      configureListeners.add(listener);
      return () => configureListeners.delete(listener);
    },
  };
  return {
    ctx,
    events,
    waitForEvent(match, timeoutMs = 30_000) {
      const found = events.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          watchers.delete(watch);
          reject(new Error(`no matching event within ${timeoutMs} ms; got: ${events.map((e) => e.type).join(", ")}`));
        }, timeoutMs);
        const watch = (e: AgentEvent) => {
          if (!match(e)) return;
          clearTimeout(timer);
          watchers.delete(watch);
          resolve(e);
        };
        watchers.add(watch);
      });
    },
    steer(message) {
      if (steerListeners.size === 0) waiting.push(message);
      for (const l of steerListeners) l(message);
    },
    configure(config) {
      for (const l of configureListeners) l(config);
    },
    cancel: () => controller.abort(),
  };
}

export function textOf(events: AgentEvent[]): string {
  return events.map((e) => (e.type === "assistant.delta" && !e.agentId ? e.text : "")).join("");
}
