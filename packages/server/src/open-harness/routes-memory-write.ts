// Memory blocks created, updated and deleted over the Open Harness API: the memory files of the
// session's workspace (session_id in the query), as Claude Code's /memory edits them. A block is a
// file, labelled by its path as the read routes label it; a new block is a memory file the runs read
// at their start (the workspace's CLAUDE.md, .claude/CLAUDE.md, AGENTS.md, CLAUDE.local.md, or a
// rule of .claude/rules), a bare name such as "persona" being the rule .claude/rules/persona.md.
// The session's next run reads what is written. Blocks of the user's home, or outside the
// workspace, are read only (403). Files are written and removed by the files routes' helpers.
import path from "node:path";
import type { Context } from "hono";
import { z } from "zod";
import { bodyOf, check } from "../sessions/api.ts";
import { refuseEchoedSecrets } from "./echoed-secrets.ts";
import { ApiError } from "./errors.ts";
import { H, handle, queryOf, type OpenHarness } from "./common.ts";
import { inTurn } from "./one-at-a-time.ts";
import { agentOf } from "./routes-agents.ts";
import { blocksOf, type MemoryBlock } from "./routes-memory.ts";
import { SessionQuery, stillOwned } from "./session-of.ts";
import { sessionSettings, type SessionSettings } from "./session-settings.ts";
import { inWorkspace, readWorkspaceText } from "./settings-edit.ts";
import { deleteAt, writeFileAt } from "./workspace-files.ts";
import { WorkspacePath } from "./workspace-paths.ts";

export const Value = z.string().min(1, "must not be empty").max(100_000, "must be at most 100000 characters");
const CreateBody = z.strictObject({ label: z.string().min(1, "must not be empty").max(1000), value: Value, read_only: z.boolean().optional() });
const UpdateBody = z.strictObject({ value: Value });
/** A label that names a rule rather than a file. */
const BARE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;
/** The memory files a run reads from the directory it works in. */
const OWN_FILES = ["CLAUDE.md", ".claude/CLAUDE.md", "AGENTS.md", "CLAUDE.local.md"];
const FRONTMATTER = /^---\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/;

export type Place = { settings: SessionSettings; agentId: string; sessionId: string };

export async function placeOf(oh: OpenHarness, c: Context): Promise<Place> {
  const settings = await sessionSettings(oh, c);
  const agentId = c.req.param("agentId")!;
  await agentOf(oh, c, agentId, settings);
  return { settings, agentId, sessionId: queryOf(c, SessionQuery).session_id };
}

/** The workspace path of the file a new block labelled `label` is, refused (400) when the runs
 * would not read it at their start. */
export function fileOfLabel(settings: SessionSettings, label: string, operation: string): string {
  const { cwd, projectRoot, home } = settings.place;
  const rules = path.join(projectRoot, ".claude", "rules");
  if (BARE.test(label)) return inWorkspace(cwd, path.join(rules, `${label}.md`), `the rule ${label}`, home);
  const relative = check(WorkspacePath, label, "label");
  const file = path.join(cwd, relative);
  const isRule = file.startsWith(`${rules}${path.sep}`) && file.endsWith(".md");
  if (!OWN_FILES.includes(relative) && !isRule) {
    throw new ApiError(400, "invalid_request", `label: "${label}" is no memory file a run reads at its start: name one of ${OWN_FILES.join(", ")}, a .md file of .claude/rules, or give a bare name such as "persona" for the rule .claude/rules/persona.md`, operation);
  }
  return inWorkspace(cwd, file, `"${label}"`, home);
}

/** The listed block `label`, which this API may write (404 when there is none, 403 when it is read only). */
async function writableBlock(oh: OpenHarness, c: Context, place: Place, operation: string): Promise<MemoryBlock> {
  const label = c.req.param("label")!;
  const block = (await blocksOf(oh, c, place.agentId, place.settings)).find((b) => b.label === label);
  if (!block) throw new ApiError(404, "memory_block_not_found", `no memory block "${label}": the blocks are the memory files the session's runs read, labelled by their path (create one with POST)`, operation);
  if (block.read_only) {
    const why = block.scope === "user" || block.label.startsWith("~/") ? "in the user's home, which is read only over this API" : "outside the session's workspace";
    throw new ApiError(403, "forbidden", `memory block "${label}" is read only: its file is ${why}`, operation);
  }
  return block;
}

/** The block `label` as the read routes show it now; undefined when the runs do not read it. */
export async function shown(oh: OpenHarness, c: Context, agentId: string, label: string): Promise<MemoryBlock | undefined> {
  return (await blocksOf(oh, c, agentId)).find((b) => b.label === label);
}

const encode = (text: string) => new TextEncoder().encode(text);

/** `work` once the API's writes of the memory files of the place's workspace before it are done:
 * what it finds there is still so when it writes. */
const inMemoryTurn = <T>(place: Place, work: () => Promise<T>) => inTurn(`memory ${place.settings.place.cwd}`, work);

export function mountMemoryWriteRoutes(oh: OpenHarness): void {
  const { app } = oh;
  app.post(
    `${H}/agents/:agentId/memory/blocks`,
    handle(async (c) => {
      const operation = "memory.createBlock";
      const place = await placeOf(oh, c);
      const body = check(CreateBody, await bodyOf(c));
      if (body.read_only) throw new ApiError(501, "not_implemented", "read_only: true is not supported: the blocks of the workspace are its files, which the runs may write too; those outside it are read only", operation);
      const relative = fileOfLabel(place.settings, body.label, operation);
      const root = place.settings.place.cwd;
      const block = await inMemoryTurn(place, async () => {
        await writeFileAt(root, relative, encode(body.value), false, stillOwned(oh, c, place.sessionId)).catch((error: unknown) => {
          throw error instanceof ApiError && error.code === "file_exists" ? new ApiError(409, "memory_block_exists", `"${relative}" exists: update it with PUT .../memory/blocks/${encodeURIComponent(relative)}`, operation) : error;
        });
        const block = await shown(oh, c, place.agentId, relative);
        if (!block) {
          // Written, but not as memory the runs read (its frontmatter gives paths, or claudeMdExcludes
          // leaves it out): taken back, so that nothing the runs ignore is left behind.
          await deleteAt(root, relative, false).catch(() => {});
          throw new ApiError(400, "invalid_request", `"${relative}" would not be read at the runs' start (a rule whose frontmatter gives paths, or a file the settings' claudeMdExcludes leaves out); it was not kept`, operation);
        }
        return block;
      });
      return c.json({ block }, 201);
    }),
  );
  app.put(
    `${H}/agents/:agentId/memory/blocks/:label`,
    handle(async (c) => {
      const operation = "memory.updateBlock";
      const place = await placeOf(oh, c);
      const body = check(UpdateBody, await bodyOf(c));
      const root = place.settings.place.cwd;
      const block = await inMemoryTurn(place, async () => {
        const block = await writableBlock(oh, c, place, operation);
        // A rule's value is its text without its frontmatter, which a new value without one keeps.
        const before = (await readWorkspaceText(root, block.label)) ?? "";
        refuseEchoedSecrets(before, [body.value], place.settings.hide, `memory block "${block.label}"`, operation);
        const front = block.label.startsWith(".claude/rules/") && !FRONTMATTER.test(body.value) ? (FRONTMATTER.exec(before)?.[0] ?? "") : "";
        await writeFileAt(root, block.label, encode(front + body.value), true, stillOwned(oh, c, place.sessionId));
        const after = await shown(oh, c, place.agentId, block.label);
        if (!after) {
          // Its new frontmatter gives paths (or the settings leave it out now): put back as it was.
          await writeFileAt(root, block.label, encode(before), true, stillOwned(oh, c, place.sessionId));
          throw new ApiError(400, "invalid_request", `value: "${block.label}" so written would not be read at the runs' start (its frontmatter gives paths); it was left as it was`, operation);
        }
        return after;
      });
      return c.json({ block });
    }),
  );
  app.delete(
    `${H}/agents/:agentId/memory/blocks/:label`,
    handle(async (c) => {
      const operation = "memory.deleteBlock";
      const place = await placeOf(oh, c);
      await inMemoryTurn(place, async () => deleteAt(place.settings.place.cwd, (await writableBlock(oh, c, place, operation)).label, false));
      return c.body(null, 204);
    }),
  );
}
