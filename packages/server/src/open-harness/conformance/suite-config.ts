// The suite's tests of what the scratch session's runs would load: its agents, skills, hooks, memory
// files and MCP servers, each written in its workspace over the API, read back, changed and removed.
import { ensure, expectStatus, type LoopbackApi } from "./client.ts";
import type { ConformanceTest } from "./types.ts";

const AGENT = "conformance-probe";
const SKILL = "conformance-probe";
const SKILL_MD = `---\nname: ${SKILL}\ndescription: Checks that skills load\n---\nNothing to do.\n`;

/** A form of one skill bundle: its files, path → text. */
export function skillForm(files: Record<string, string>): FormData {
  const form = new FormData();
  for (const [path, text] of Object.entries(files)) form.append("files", new Blob([text]), path);
  return form;
}

export async function makeAgent(api: LoopbackApi, q: string, description = "Checks that agents load"): Promise<void> {
  expectStatus(await api.call("POST", `/agents${q}`, { json: { name: AGENT, description, config: { system_prompt: "Answer briefly." } } }), 201);
}

export async function agentDescription(api: LoopbackApi, q: string): Promise<unknown> {
  return expectStatus(await api.call("GET", `/agents/${AGENT}${q}`), 200).json?.agent?.description;
}

export async function removeAgent(api: LoopbackApi, q: string): Promise<void> {
  await api.call("DELETE", `/agents/${AGENT}${q}`);
}

// Memory files are the session's, shared by every agent: they are reached through a built-in one.
const MEMORY = "/agents/general-purpose/memory/blocks";
const block = (label: string) => `${MEMORY}/${encodeURIComponent(label)}`;

// A stdio MCP server of a few lines, run by this server's own node: it answers initialize, ping and
// tools/list (one tool, conformance_echo) and ignores notifications.
const MCP_SERVER = `
const rl = require("node:readline").createInterface({ input: process.stdin });
const answers = {
  initialize: () => ({ protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "conformance", version: "1" } }),
  ping: () => ({}),
  "tools/list": () => ({ tools: [{ name: "conformance_echo", description: "Echoes", inputSchema: { type: "object" } }] }),
};
rl.on("line", (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  const answer = answers[m.method];
  const reply = answer ? { result: answer() } : { error: { code: -32601, message: "no method " + m.method } };
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, ...reply }) + "\\n");
});`;

export const CONFIG_TESTS: ConformanceTest[] = [
  {
    id: "agents.create-get",
    name: "an agent made in the workspace reads back",
    category: "agents",
    writesWorkspace: true,
    async run({ api, q }) {
      await makeAgent(api, q);
      const description = await agentDescription(api, q);
      ensure(description === "Checks that agents load", `the agent reads back with description ${JSON.stringify(description)}`);
    },
  },
  {
    id: "agents.update",
    name: "an agent changed reads back changed",
    category: "agents",
    writesWorkspace: true,
    async run({ api, q }) {
      expectStatus(await api.call("PATCH", `/agents/${AGENT}${q}`, { json: { description: "Changed by the suite" } }), 200);
      const description = await agentDescription(api, q);
      ensure(description === "Changed by the suite", `the changed agent reads back with description ${JSON.stringify(description)}`);
    },
  },
  {
    id: "agents.delete",
    name: "an agent deleted is gone",
    category: "agents",
    writesWorkspace: true,
    async run({ api, q }) {
      expectStatus(await api.call("DELETE", `/agents/${AGENT}${q}`), 204);
      expectStatus(await api.call("GET", `/agents/${AGENT}${q}`), 404);
    },
  },
  {
    id: "skills.validate",
    name: "a bundle is validated as the runs load it: a good one valid, one without a description not",
    category: "skills",
    async run({ api, q }) {
      const good = expectStatus(await api.call("POST", `/skills/validate${q}`, { form: skillForm({ [`${SKILL}/SKILL.md`]: SKILL_MD }) }), 200).json;
      ensure(good?.valid === true, `a good bundle was found invalid: ${JSON.stringify(good?.errors ?? good).slice(0, 300)}`);
      const bad = expectStatus(await api.call("POST", `/skills/validate${q}`, { form: skillForm({ [`${SKILL}/SKILL.md`]: `---\nname: ${SKILL}\n---\nBody.\n` }) }), 200).json;
      ensure(bad?.valid === false && JSON.stringify(bad.errors).includes("description"), `a bundle without a description was not refused naming it: ${JSON.stringify(bad).slice(0, 300)}`);
    },
  },
  {
    id: "skills.register-get",
    name: "a skill registered in the workspace is listed with its description",
    category: "skills",
    writesWorkspace: true,
    async run({ api, q }) {
      expectStatus(await api.call("POST", `/skills${q}`, { form: skillForm({ [`${SKILL}/SKILL.md`]: SKILL_MD }) }), 201);
      const { skill } = expectStatus(await api.call("GET", `/skills/${SKILL}${q}`), 200).json ?? {};
      ensure(skill?.description === "Checks that skills load", `the skill reads back with description ${JSON.stringify(skill?.description)}`);
    },
  },
  {
    id: "skills.uninstall",
    name: "a skill uninstalled is gone",
    category: "skills",
    writesWorkspace: true,
    async run({ api, q }) {
      expectStatus(await api.call("DELETE", `/skills/${SKILL}${q}`), 204);
      expectStatus(await api.call("GET", `/skills/${SKILL}${q}`), 404);
    },
  },
  {
    id: "hooks.register-unregister",
    name: "a hook registered in the workspace's settings reads back, and is gone once unregistered",
    category: "hooks",
    writesWorkspace: true,
    async run({ api, q }) {
      const made = expectStatus(await api.call("POST", `/hooks${q}`, { json: { event: "pre_tool", matcher: "Bash", handler: { type: "command", command: "true" } } }), 201).json;
      const id = made?.hook?.id;
      ensure(typeof id === "string", `POST /hooks answered no hook id: ${JSON.stringify(made).slice(0, 200)}`);
      const { hook } = expectStatus(await api.call("GET", `/hooks/${encodeURIComponent(id)}${q}`), 200).json ?? {};
      ensure(hook?.handler?.command === "true", `the hook reads back with handler ${JSON.stringify(hook?.handler)}`);
      expectStatus(await api.call("DELETE", `/hooks/${encodeURIComponent(id)}${q}`), 204);
      const listed = expectStatus(await api.call("GET", `/hooks${q}`), 200).json;
      ensure(!JSON.stringify(listed).includes(`"${id}"`), `GET /hooks still lists the hook ${id}`);
    },
  },
  {
    id: "memory.create-update-delete",
    name: "a memory file made in the workspace reads back, changed reads back changed, deleted is gone",
    category: "memory",
    writesWorkspace: true,
    async run({ api, q }) {
      const made = expectStatus(await api.call("POST", `${MEMORY}${q}`, { json: { label: "conformance-probe", value: "first" } }), 201).json;
      const label = made?.block?.label;
      ensure(typeof label === "string", `POST .../memory/blocks answered no label: ${JSON.stringify(made).slice(0, 200)}`);
      const read = async () => expectStatus(await api.call("GET", `${block(label)}${q}`), 200).json?.block?.value;
      ensure((await read())?.includes("first"), "the memory block does not read back as written");
      expectStatus(await api.call("PUT", `${block(label)}${q}`, { json: { value: "second" } }), 200);
      const changed = await read();
      ensure(changed?.includes("second") && !changed.includes("first"), `the changed block reads back ${JSON.stringify(changed)}`);
      expectStatus(await api.call("DELETE", `${block(label)}${q}`), 204);
      expectStatus(await api.call("GET", `${block(label)}${q}`), 404);
    },
  },
  {
    id: "mcp.list",
    name: "the session's MCP servers are listed; one connected in the workspace is listed, and gone once disconnected",
    category: "mcp",
    writesWorkspace: true,
    async run({ api, q }) {
      const before = expectStatus(await api.call("GET", `/mcp-servers${q}`), 200).json;
      ensure(Array.isArray(before?.data), `GET /mcp-servers answered no list: ${JSON.stringify(before).slice(0, 200)}`);
      const transport = { type: "stdio", command: process.execPath, args: ["--version"] };
      expectStatus(await api.call("POST", `/mcp-servers${q}`, { json: { name: "conformance-probe", transport } }), 201);
      const { server } = expectStatus(await api.call("GET", `/mcp-servers/conformance-probe${q}`), 200).json ?? {};
      ensure(server?.name === "conformance-probe", `the server reads back as ${JSON.stringify(server).slice(0, 200)}`);
      expectStatus(await api.call("DELETE", `/mcp-servers/conformance-probe${q}`), 204);
      expectStatus(await api.call("GET", `/mcp-servers/conformance-probe${q}`), 404);
    },
  },
  {
    id: "mcp.probe",
    name: "an MCP server connected in the workspace is started by the session's runner and lists its tools",
    category: "mcp",
    slow: true,
    writesWorkspace: true,
    async run({ api, q }) {
      const transport = { type: "stdio", command: process.execPath, args: ["-e", MCP_SERVER] };
      expectStatus(await api.call("POST", `/mcp-servers${q}`, { json: { name: "conformance-mcp", transport } }), 201);
      try {
        const { tools } = expectStatus(await api.call("GET", `/mcp-servers/conformance-mcp/tools${q}`), 200).json ?? {};
        ensure(Array.isArray(tools) && tools.some((tool: { name?: unknown }) => tool.name === "conformance_echo"), `the server's tools were listed as ${JSON.stringify(tools).slice(0, 300)}`);
      } finally {
        await api.call("DELETE", `/mcp-servers/conformance-mcp${q}`);
      }
    },
  },
];
