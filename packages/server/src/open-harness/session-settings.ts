// What a run in a session's workspace would start from, for the read-only routes that show the
// user's files (agents, memory): where it runs, the settings it reads, and the logs' secret-hiding
// rule (the settings' env values and the server's secret-named variables by value, and secrets in a
// shape that says so), as the hooks route applies it.
import type { Context } from "hono";
import { configuredSecrets, secretHiding, secretValuesOf } from "@harness/llm/hidden-secrets";
import { loadRunSettings, runPlace } from "@harness/agent/run-settings";
import { harnessOf, queryOf, type OpenHarness } from "./common.ts";
import { ownSession, SessionQuery } from "./session-of.ts";

export type SessionSettings = {
  userId: string;
  sessionId: string;
  place: { cwd: string; home: string; projectRoot: string };
  loaded: Awaited<ReturnType<typeof loadRunSettings>>;
  hide: (text: string) => string;
};

/** The settings of the session the query names (404 session_not_found for one the user has not). */
export async function sessionSettings(oh: OpenHarness, c: Context): Promise<SessionSettings> {
  harnessOf(c);
  const { session_id } = queryOf(c, SessionQuery);
  const userId = await ownSession(oh, c, session_id);
  const place = await runPlace({ cwd: oh.workDirOf(userId, session_id), home: oh.home });
  const loaded = await loadRunSettings({ cwd: place.cwd, home: place.home }, place);
  const { hide } = secretHiding([...secretValuesOf(process.env), ...loaded.sources.flatMap((source) => configuredSecrets(source.settings.env, "env"))]);
  return { userId, sessionId: session_id, place, loaded, hide };
}
