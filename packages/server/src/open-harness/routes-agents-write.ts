// Creating, changing, removing, cloning, exporting and importing a session's sub-agents over the
// Open Harness API (session_id in the query, as the read routes take it): the .md files of
// .claude/agents in its workspace, as Claude Code's /agents writes them (agent-writes.ts). The
// session's next run reads them at its start.
import { Readable } from "node:stream";
import type { Context } from "hono";
import { z } from "zod";
import { bodyOf, check } from "../sessions/api.ts";
import { agentAsLoaded, agentFileText, changedAgentText, EntryName, type AgentFields } from "./agent-files.ts";
import { agentPlace, agentsInTurn, agentText, checkFree, definitionOf, deleteAgentFile, writableFile, writeAgentFile } from "./agent-writes.ts";
import { H, handle, harnessOf, refuseUnsupported, type OpenHarness } from "./common.ts";
import { refuseEchoedSecrets } from "./echoed-secrets.ts";
import { ApiError } from "./errors.ts";
import { formOf } from "./multipart.ts";
import { agentOf } from "./routes-agents.ts";
import { sessionSettings } from "./session-settings.ts";
import { readZip } from "./zip-reader.ts";
import { zipOf } from "./zip-writer.ts";

/** An agent's file, or a bundle holding it, is at most this large. */
const AGENT_MAX_BYTES = 1024 * 1024;

const Text = (max: number) => z.string({ error: "must be a string" }).trim().min(1, "must not be empty").max(max, `must be at most ${max} characters`);
const Model = Text(200).refine((model) => !/[\r\n]/.test(model), "must be one line");
const Config = z.strictObject({
  model: Model.optional(),
  system_prompt: Text(200_000).optional(),
  temperature: z.number({ error: "must be a number" }).min(0, "must be at least 0").max(1, "must be at most 1").optional(),
  max_tokens: z.number({ error: "must be a number" }).int("must be a whole number").positive("must be at least 1").optional(),
});
const Names = (what: string) => z.array(Text(200).refine((name) => !/[\r\n,]/.test(name), "must be one name, without a comma"), { error: `must be a list of ${what}` }).max(100, "must list at most 100");
const Fields = {
  description: Text(4000),
  config: Config.optional(),
  skills: z.array(z.strictObject({ skill_id: Text(200), version: z.string().optional(), required: z.boolean({ error: "must be true or false" }).optional() })).max(100).optional(),
  mcp_servers: z.array(z.strictObject({ server_id: Text(200), tools: z.array(z.string()).optional(), required: z.boolean({ error: "must be true or false" }).optional() })).max(100).optional(),
  /** Claude Code's `tools` key: the tools the agent may use (all, when left out). */
  tools: Names("tool names").optional(),
};
const CreateBody = z.strictObject({ name: EntryName, ...Fields });
const UpdateBody = z.strictObject({ name: EntryName.optional(), ...Fields, description: Fields.description.optional() });
const CloneBody = z.strictObject({ new_name: EntryName, include_memory: z.boolean({ error: "must be true or false" }).optional() });
const Metadata = z.strictObject({ name: EntryName, description: Text(4000) });

type Given = Partial<z.infer<typeof UpdateBody>>;

/** What the body sets, as file fields; 501 for what a file cannot hold. */
function fieldsOf(body: Given, operation: string): Partial<AgentFields> {
  refuseUnsupported(body.config ?? {}, ["temperature", "max_tokens"], operation);
  if (body.skills?.some((s) => s.version !== undefined || s.required === false)) throw new ApiError(501, "not_implemented", "skills: a version or required: false is not supported by this harness (an agent's skills are names, each required)", operation);
  if (body.mcp_servers?.some((s) => s.tools !== undefined || s.required === false)) throw new ApiError(501, "not_implemented", "mcp_servers: tools or required: false is not supported by this harness (an agent's servers are names, each required)", operation);
  return {
    ...(body.name !== undefined && { name: body.name }),
    ...(body.description !== undefined && { description: body.description }),
    ...(body.config?.model !== undefined && { model: body.config.model }),
    ...(body.config?.system_prompt !== undefined && { systemPrompt: body.config.system_prompt }),
    ...(body.tools !== undefined && { tools: body.tools }),
    ...(body.skills !== undefined && { skills: body.skills.map((s) => s.skill_id) }),
    ...(body.mcp_servers !== undefined && { mcpServers: body.mcp_servers.map((s) => s.server_id) }),
  };
}

/** agents.create's file: from JSON fields, or the spec's form (metadata, and the agent's .md file:
 * its whole file, or its system prompt alone). */
async function createdText(c: Context): Promise<{ name: string; text: string }> {
  if (!/^multipart\/form-data/i.test(c.req.header("content-type") ?? "")) {
    const body = check(CreateBody, await bodyOf(c, AGENT_MAX_BYTES));
    const fields = fieldsOf(body, "agents.create");
    if (fields.systemPrompt === undefined) throw new ApiError(400, "invalid_request", "config.system_prompt: required: it is the agent's instructions, the body of its file", "agents.create");
    return { name: body.name, text: agentFileText({ ...fields, name: body.name, description: body.description, systemPrompt: fields.systemPrompt }) };
  }
  const form = await formOf(c, AGENT_MAX_BYTES, 8, "agents.create", ["metadata", "files", "files[]"]);
  try {
    const metadata = check(Metadata, jsonOf(form.fields.get("metadata"), "metadata"), "metadata");
    const files = [...(form.files.get("files") ?? []), ...(form.files.get("files[]") ?? [])];
    if (files.length !== 1 || !files[0]!.name.endsWith(".md")) throw new ApiError(400, "invalid_request", `files: one .md file (AGENTS.md or ${metadata.name}.md), the agent's file or its system prompt: a sub-agent is that one file`, "agents.create");
    const text = await files[0]!.text();
    if (!/^\uFEFF?---[ \t]*\r?\n/.test(text)) return { name: metadata.name, text: agentFileText({ ...metadata, systemPrompt: text }) };
    return { name: metadata.name, text: changedAgentText(text, metadata, "files") };
  } finally {
    form.release();
  }
}

function jsonOf(text: string | undefined, field: string): unknown {
  if (text === undefined) throw new ApiError(400, "invalid_request", `${field}: required (JSON text)`);
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, "invalid_request", `${field}: not valid JSON`);
  }
}

/** agents.import's bundle: the ZIP an export makes (AGENTS.md at its root, or one .md file there),
 * its agent renamed `rename_to` when given. */
async function importedText(c: Context): Promise<{ name?: string; text: string }> {
  const form = await formOf(c, AGENT_MAX_BYTES, 8, "agents.import", ["bundle", "rename_to"]);
  try {
    const bundle = form.files.get("bundle");
    if (bundle?.length !== 1) throw new ApiError(400, "invalid_request", "bundle: required, one ZIP file (as agents.export makes)", "agents.import");
    const renamed = form.fields.has("rename_to") ? check(EntryName, form.fields.get("rename_to"), "rename_to") : undefined;
    const files = readZip(Buffer.from(await bundle[0]!.arrayBuffer()), "bundle", 16, AGENT_MAX_BYTES, "agents.import");
    const markdown = files.filter((file) => !file.name.includes("/") && file.name.endsWith(".md"));
    const file = markdown.find((f) => f.name === "AGENTS.md") ?? (markdown.length === 1 ? markdown[0] : undefined);
    if (!file) throw new ApiError(400, "invalid_request", "bundle: holds no AGENTS.md at its root (nor a single .md file there)", "agents.import");
    const others = files.filter((f) => f !== file).map((f) => f.name);
    if (others.length > 0) throw new ApiError(400, "invalid_request", `bundle: a sub-agent is its one file, but the bundle also holds ${others.slice(0, 5).join(", ")}`, "agents.import");
    const text = file.data.toString("utf8");
    return renamed === undefined ? { text } : { name: renamed, text: changedAgentText(text, { name: renamed }, "bundle") };
  } finally {
    form.release();
  }
}

export function mountAgentWriteRoutes(oh: OpenHarness): void {
  const { app } = oh;
  const created = async (c: Context, name: string) => c.json({ agent: await agentOf(oh, c, name) }, 201);
  // Each write: the session checked, its body read, then the agents looked at and the file written
  // in their turn (agentsInTurn).
  app.post(
    `${H}/agents/import`,
    handle(async (c) => {
      harnessOf(c);
      const settings = await sessionSettings(oh, c);
      const { name, text } = await importedText(c);
      const agentName = name ?? (await agentAsLoaded(text, "AGENTS.md", "bundle")).name;
      check(EntryName, agentName, "the bundle's agent name");
      await agentsInTurn(oh, c, settings, async (at) => {
        checkFree(at, agentName, "agents.import");
        await writeAgentFile(oh, c, at, agentName, text, "agents.import");
      });
      return created(c, agentName);
    }),
  );
  app.post(
    `${H}/agents`,
    handle(async (c) => {
      harnessOf(c);
      const settings = await sessionSettings(oh, c);
      const { name, text } = await createdText(c);
      await agentsInTurn(oh, c, settings, async (at) => {
        checkFree(at, name, "agents.create");
        await writeAgentFile(oh, c, at, name, text, "agents.create");
      });
      return created(c, name);
    }),
  );
  app.patch(
    `${H}/agents/:agentId`,
    handle(async (c) => {
      harnessOf(c);
      const settings = await sessionSettings(oh, c);
      const changes = fieldsOf(check(UpdateBody, await bodyOf(c, AGENT_MAX_BYTES)), "agents.update");
      const name = await agentsInTurn(oh, c, settings, async (at) => {
        const agent = definitionOf(at, c.req.param("agentId")!);
        const relative = writableFile(at, agent, "agents.update");
        const current = await agentText(at, agent);
        refuseEchoedSecrets(current, [changes.systemPrompt, changes.description], at.settings.hide, `agent ${agent.name}'s file`, "agents.update");
        const text = changedAgentText(current, changes);
        const name = changes.name ?? agent.name;
        if (name === agent.name) {
          await writeAgentFile(oh, c, at, name, text, "agents.update", relative, true);
          return name;
        }
        // Renamed: its file too, when it was named after it.
        checkFree(at, name, "agents.update");
        const moved = relative.endsWith(`/${agent.name}.md`) ? `${relative.slice(0, -`${agent.name}.md`.length)}${name}.md` : relative;
        await writeAgentFile(oh, c, at, name, text, "agents.update", moved, moved === relative);
        if (moved !== relative) await deleteAgentFile(at, relative);
        return name;
      });
      return c.json({ agent: await agentOf(oh, c, name) });
    }),
  );
  app.delete(
    `${H}/agents/:agentId`,
    handle(async (c) => {
      harnessOf(c);
      const settings = await sessionSettings(oh, c);
      await agentsInTurn(oh, c, settings, (at) => deleteAgentFile(at, writableFile(at, definitionOf(at, c.req.param("agentId")!), "agents.delete")));
      return c.body(null, 204);
    }),
  );
  app.post(
    `${H}/agents/:agentId/clone`,
    handle(async (c) => {
      harnessOf(c);
      const settings = await sessionSettings(oh, c);
      const body = check(CloneBody, await bodyOf(c));
      await agentsInTurn(oh, c, settings, async (at) => {
        const agent = definitionOf(at, c.req.param("agentId")!);
        checkFree(at, body.new_name, "agents.clone");
        await writeAgentFile(oh, c, at, body.new_name, changedAgentText(await agentText(at, agent), { name: body.new_name }), "agents.clone");
      });
      return created(c, body.new_name);
    }),
  );
  app.get(
    `${H}/agents/:agentId/export`,
    handle(async (c) => {
      harnessOf(c);
      const at = await agentPlace(oh, c);
      const agent = definitionOf(at, c.req.param("agentId")!);
      const text = Buffer.from(await agentText(at, agent));
      const archive = zipOf([{ name: "AGENTS.md", modified: new Date(), mode: 0o100644, data: async () => Readable.from([text]) }]);
      const filename = `${agent.name.replace(/[^A-Za-z0-9._-]/g, "_")}.zip`;
      return new Response(Readable.toWeb(Readable.from(archive)) as ReadableStream, { headers: { "content-type": "application/zip", "content-disposition": `attachment; filename="${filename}"` } });
    }),
  );
}
