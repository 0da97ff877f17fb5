// Memory over the Open Harness API, listed: the memory files a session's runs read at their start
// (@harness/agent's loadMemory: the user's CLAUDE.md and rules, the project's CLAUDE.md, AGENTS.md and
// rules, CLAUDE.local.md, the files they import, as the settings' claudeMdExcludes leaves them; then
// auto memory's MEMORY.md when it is on), each a block. Every agent of the session reads the same.
// Blocks are labelled by their file: its path in the workspace, "~/…" in the user's home, else
// absolute; those of the workspace are written (routes-memory-write.ts), the others are read only.
// A block's text is shown through the logs' secret-hiding rule. The archive (routes-memory-archive.ts)
// is counted in memory.get and searched by memory.search unless include_archive is false; while auto
// memory is off for the session it is empty here.
import { stat } from "node:fs/promises";
import path from "node:path";
import type { Context } from "hono";
import { z } from "zod";
import { loadMemory } from "@harness/agent/load-memory";
import { runAutoMemory } from "@harness/agent/run-auto-memory";
import { bodyOf, check } from "../sessions/api.ts";
import { ApiError } from "./errors.ts";
import { H, handle, type OpenHarness } from "./common.ts";
import { autoMemoryDir } from "./memory-archive-place.ts";
import { readArchive, shownEntry, type ArchiveEntry } from "./memory-archive.ts";
import { labelOf } from "./memory-label.ts";
import { searchMemory } from "./memory-search.ts";
import { agentOf } from "./routes-agents.ts";
import { sessionSettings, type SessionSettings } from "./session-settings.ts";

const SearchBody = z.strictObject({
  query: z.string().min(1, "must not be empty").max(1000, "must be at most 1000 characters"),
  include_archive: z.boolean().optional(),
  limit: z.number().int("must be an integer").min(1, "must be at least 1").max(100, "must be at most 100").default(10),
});

export type MemoryBlock = { label: string; value: string; read_only: boolean; updated_at: string; scope: string };

/** The memory blocks of agent `agentId` (404 agent_not_found) of the session the query names, in the
 * order the runs send them. updated_at is the file's last change; a block outside the workspace,
 * or the user's, is read only. */
export async function blocksOf(oh: OpenHarness, c: Context, agentId: string, given?: SessionSettings): Promise<MemoryBlock[]> {
  const settings = given ?? (await sessionSettings(oh, c));
  await agentOf(oh, c, agentId, settings);
  const { place, loaded, hide } = settings;
  const excludes = loaded.settings.claudeMdExcludes;
  const memory = await loadMemory({ cwd: place.cwd, projectRoot: place.projectRoot, home: place.home, ...(excludes && { excludes }) });
  const auto = await runAutoMemory({ cwd: place.cwd, home: place.home }, { ...process.env, ...loaded.settings.env }, loaded, () => {});
  const files = [...memory.files, ...(auto?.index ? [auto.index] : [])];
  return Promise.all(
    files.map(async (file): Promise<MemoryBlock> => {
      const label = labelOf(file.path, place.cwd, place.home);
      return {
        label,
        value: hide(file.content),
        // The workspace's own; never the user's, even in a workspace that holds their home.
        read_only: file.scope === "user" || label.startsWith("~/") || path.isAbsolute(label),
        updated_at: await stat(file.path).then((s) => s.mtime.toISOString(), () => oh.startedAt),
        scope: file.scope,
      };
    }),
  );
}

/** The session's archive entries (memory-archive.ts), as written; none while auto memory is off. */
async function archiveOf(settings: SessionSettings): Promise<ArchiveEntry[]> {
  const dir = await autoMemoryDir(settings);
  return dir === undefined ? [] : readArchive(dir);
}

export function mountMemoryRoutes(oh: OpenHarness): void {
  const { app } = oh;
  app.get(
    `${H}/agents/:agentId/memory`,
    handle(async (c) => {
      const agentId = c.req.param("agentId")!;
      const settings = await sessionSettings(oh, c);
      const blocks = await blocksOf(oh, c, agentId, settings);
      return c.json({ memory: { agent_id: agentId, blocks, archive_size: (await archiveOf(settings)).length } });
    }),
  );
  app.get(
    `${H}/agents/:agentId/memory/blocks`,
    handle(async (c) => c.json({ blocks: await blocksOf(oh, c, c.req.param("agentId")!) })),
  );
  app.post(
    `${H}/agents/:agentId/memory/search`,
    handle(async (c) => {
      const body = check(SearchBody, await bodyOf(c));
      const settings = await sessionSettings(oh, c);
      const blocks = await blocksOf(oh, c, c.req.param("agentId")!, settings);
      const entries = body.include_archive === false ? [] : (await archiveOf(settings)).map((entry) => shownEntry(entry, settings.hide));
      return c.json({ results: searchMemory(blocks, entries, body.query, body.limit) });
    }),
  );
  app.get(
    `${H}/agents/:agentId/memory/blocks/:label`,
    handle(async (c) => {
      const label = c.req.param("label")!;
      const block = (await blocksOf(oh, c, c.req.param("agentId")!)).find((b) => b.label === label);
      if (!block) throw new ApiError(404, "memory_block_not_found", `no memory block "${label}": the blocks are the memory files the session's runs read, labelled by their path`);
      return c.json({ block });
    }),
  );
}
