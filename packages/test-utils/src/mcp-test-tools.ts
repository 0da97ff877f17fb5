// The tools of the MCP test server, on a real McpServer from the MCP SDK, so that clients are
// tested against the protocol as real servers speak it.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

export type McpTestServerOptions = {
  /** Extra tools `dummy_1` … `dummy_N`, each with its own description, for deferred-tool tests. */
  extraTools?: number;
  /** Resources docs://readme (Markdown), docs://logo (a PNG) and docs://missing (whose read fails). */
  resources?: boolean;
  /** Prompts `review` (arguments file, required, and focus) and `hello` (none). */
  prompts?: boolean;
};

/** Shared by every connection of one test server process. */
export type McpTestServerState = {
  /** How many `slow` calls ended because the client cancelled them. */
  cancelledSlowCalls: number;
};

/** A 1×1 red PNG. */
export const TEST_PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

const DUMMY_TOPICS = ["weather", "invoices", "calendar", "database", "email", "kubernetes", "payments", "translation", "images", "search"];

/** The topic word in the description of `dummy_<n>` (n from 1): lets tests search by keyword. */
export function dummyToolTopic(n: number): string {
  return DUMMY_TOPICS[(n - 1) % DUMMY_TOPICS.length];
}

export function createMcpTestServer(options: McpTestServerOptions, state: McpTestServerState): McpServer {
  const server = new McpServer({ name: "harness-mcp-test-server", version: "1.0.0" });

  server.registerTool(
    "echo",
    { description: "Echoes the given text back unchanged.", inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: "text", text }] }),
  );

  server.registerTool(
    "add",
    { description: "Adds two numbers and returns the sum.", inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
  );

  // As a tool for Claude Code's --permission-prompt-tool: Bash commands with "rm" in them are
  // refused, others allowed with "private" in the command made "public" (its updatedInput). The
  // first touch command is allowed with a session rule for all of them; being asked about one again
  // means the rule did not hold, and it refuses. A chmod command is allowed with a switch to
  // bypassPermissions (setMode).
  let touchAllowed = false;
  server.registerTool(
    "permission_prompt",
    {
      description:
        "Decides on a permission prompt: denies Bash commands containing rm; allows the first touch command with a session rule allowing all touch commands (updatedPermissions), and denies any touch command it is asked about after that; allows a chmod command with a switch to bypassPermissions; allows the rest.",
      inputSchema: { tool_name: z.string(), input: z.record(z.string(), z.unknown()), tool_use_id: z.string().optional() },
    },
    async ({ tool_name, input }) => {
      const command = typeof input.command === "string" ? input.command : undefined;
      const touch = tool_name === "Bash" && command?.startsWith("touch ") === true;
      const answer =
        tool_name === "Bash" && command?.includes("rm")
          ? { behavior: "deny", message: "rm is not allowed here" }
          : touch && touchAllowed
            ? { behavior: "deny", message: "asked again about a touch command" }
            : tool_name === "Bash" && command?.startsWith("chmod ")
              ? { behavior: "allow", updatedInput: input, updatedPermissions: [{ type: "setMode", mode: "bypassPermissions", destination: "session" }] }
              : touch
                ? { behavior: "allow", updatedInput: input, updatedPermissions: [{ type: "addRules", rules: [{ toolName: "Bash", ruleContent: "touch:*" }], behavior: "allow", destination: "session" }] }
                : { behavior: "allow", updatedInput: command === undefined ? input : { ...input, command: command.replaceAll("private", "public") } };
      if (touch) touchAllowed = true;
      return { content: [{ type: "text", text: JSON.stringify(answer) }] };
    },
  );

  server.registerTool("fail", { description: "Always fails with an error result." }, async () => ({
    content: [{ type: "text", text: "fail: this tool always fails" }],
    isError: true,
  }));

  server.registerTool(
    "slow",
    { description: "Waits the given number of milliseconds, then answers. Stops early when cancelled.", inputSchema: { ms: z.number().int().min(0) } },
    async ({ ms }, extra) => {
      const cancelled = await sleep(ms, extra.signal);
      if (cancelled) {
        state.cancelledSlowCalls += 1;
        return { content: [{ type: "text", text: "cancelled" }], isError: true };
      }
      return { content: [{ type: "text", text: `waited ${ms} ms` }] };
    },
  );

  server.registerTool(
    "progress",
    {
      description:
        "Reports progress `steps` times (`[i/steps] step i`, no total with `noTotal`), then answers. With `gate` (a file path), waits after the last report until that file exists. Stops early when cancelled.",
      inputSchema: { steps: z.number().int().min(1), gate: z.string().optional(), noTotal: z.boolean().optional() },
    },
    async ({ steps, gate, noTotal }, extra) => {
      const token = extra._meta?.progressToken;
      for (let step = 1; step <= steps; step++) {
        if (token !== undefined) {
          const params = { progressToken: token, progress: step, ...(!noTotal && { total: steps }), message: `step ${step}` };
          await extra.sendNotification({ method: "notifications/progress", params });
        }
      }
      if (gate && (await untilFileExists(gate, extra.signal))) return { content: [{ type: "text", text: "cancelled" }], isError: true };
      return { content: [{ type: "text", text: `done after ${steps} steps${token === undefined ? " (no progress token)" : ""}` }] };
    },
  );

  server.registerTool(
    "image",
    {
      description: "Returns a small PNG image and a caption, or the image in `file` (of type `mimeType`) as it is.",
      inputSchema: { file: z.string().optional(), mimeType: z.string().optional() },
    },
    async ({ file, mimeType }) =>
      file
        ? { content: [{ type: "image", data: (await readFile(file)).toString("base64"), mimeType: mimeType ?? "image/png" }] }
        : {
            content: [
              { type: "text", text: "a red pixel" },
              { type: "image", data: TEST_PNG_BASE64, mimeType: "image/png" },
            ],
          },
  );

  server.registerTool("pid", { description: "Returns the process id of the server." }, async () => ({
    content: [{ type: "text", text: String(process.pid) }],
  }));

  server.registerTool("stats", { description: "Returns the server's counters as JSON." }, async () => ({
    content: [{ type: "text", text: JSON.stringify(state) }],
  }));

  if (options.resources) addResources(server);
  if (options.prompts) addPrompts(server);
  for (let n = 1; n <= (options.extraTools ?? 0); n++) {
    const topic = dummyToolTopic(n);
    server.registerTool(
      `dummy_${n}`,
      { description: `Dummy tool number ${n} about ${topic}. Returns its number.`, inputSchema: { note: z.string().optional() } },
      async () => ({ content: [{ type: "text", text: `dummy ${n}` }] }),
    );
  }
  return server;
}

/** The text of docs://readme. */
export const TEST_README = "# Test server\nThis server exists to be read by tests.";

function addResources(server: McpServer): void {
  server.registerResource("readme", "docs://readme", { description: "How the test server works.", mimeType: "text/markdown" }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: "text/markdown", text: TEST_README }],
  }));
  server.registerResource("logo", "docs://logo", { description: "The logo.", mimeType: "image/png" }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: "image/png", blob: TEST_PNG_BASE64 }],
  }));
  server.registerResource("missing", "docs://missing", { description: "Listed, but reading it fails." }, async () => {
    throw new Error("docs://missing is gone");
  });
}

function addPrompts(server: McpServer): void {
  server.registerPrompt(
    "review",
    { description: "Review a file.", argsSchema: { file: z.string(), focus: z.string().optional() } },
    ({ file, focus }) => ({
      messages: [{ role: "user", content: { type: "text", text: `Please review ${file}${focus ? `, looking at ${focus}` : ""}.` } }],
    }),
  );
  server.registerPrompt("hello", { description: "Say hello." }, () => ({
    messages: [
      { role: "user", content: { type: "text", text: "Say hello." } },
      { role: "assistant", content: { type: "text", text: "Hello from the test server." } },
    ],
  }));
}

/** Resolves true when the signal fired before `ms` passed. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(false);
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Resolves once `file` exists (false) or `signal` fires (true). */
function untilFileExists(file: string, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const check = () => {
      if (signal.aborted) return done(true);
      if (existsSync(file)) done(false);
    };
    const timer = setInterval(check, 20);
    const done = (cancelled: boolean) => {
      clearInterval(timer);
      signal.removeEventListener("abort", check);
      resolve(cancelled);
    };
    signal.addEventListener("abort", check);
    check();
  });
}
