// The web UI's entry: asks the server whether it needs a token, asks the user for what is missing,
// then shows the sessions and opens the one named in the address (#session=…) or none.
import { byId, setText } from "./dom.ts";
import { fetchUiConfig, forgetToken, storedCredentials, type Credentials, type UiConfig } from "./credentials.ts";
import { forkTitle } from "./session-item.ts";
import { sessionsView } from "./sessions-view.ts";
import { sessionView } from "./session-view.ts";
import { askCredentials, tryCredentials } from "./sign-in-view.ts";

function problem(message: string): void {
  const box = byId("problem");
  box.hidden = message === "";
  setText(box, message);
}

/** Set before the page reloads to have the sign-in form shown (to switch user, or after the token
 * was refused), with why. */
const ASK_KEY = "harness.ask";

function sessionInAddress(): string | undefined {
  const match = /^#session=(.+)$/.exec(location.hash);
  try {
    return match ? decodeURIComponent(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

async function start(config: UiConfig): Promise<void> {
  const known = storedCredentials(config);
  let why = sessionStorage.getItem(ASK_KEY) ?? undefined;
  sessionStorage.removeItem(ASK_KEY);
  let signedIn: { credentials: Credentials; api: Awaited<ReturnType<typeof askCredentials>>["api"] } | undefined;
  if (why === undefined && known.userId && (known.token || !config.tokenRequired)) {
    const credentials = known as Credentials;
    const api = await tryCredentials(credentials);
    if (typeof api === "string") {
      forgetToken();
      why = api;
    } else signedIn = { credentials, api };
  }
  signedIn ??= await askCredentials(config, known, why);
  const { credentials, api } = signedIn;
  byId("app").hidden = false;
  setText(byId("user"), credentials.userId);
  const signOut = byId<HTMLButtonElement>("sign-out");
  signOut.hidden = false;
  const signInAgain = (why: string) => {
    forgetToken();
    sessionStorage.setItem(ASK_KEY, why);
    location.hash = "";
    location.reload();
  };
  signOut.onclick = () => signInAgain("");
  const refused = (message: string) => signInAgain(`the server no longer takes the token: ${message}`);
  const open = (id: string) => {
    sessions.mark(id);
    void session.open(id);
  };
  const removed = (id: string) => {
    if (session.current() !== id) return;
    session.close();
    sessions.mark(undefined);
  };
  let forking = false;
  /** Forks the session open (before prompt `messageId`, or all of it) and opens the fork. */
  const fork = async (messageId?: string) => {
    const source = session.current();
    if (!source || forking) return;
    forking = true;
    problem("");
    try {
      const title = sessions.titleOf(source);
      const made = await api.fork(source, { ...(messageId !== undefined && { messageId }), ...(title && { title: forkTitle(title) }) });
      sessions.mark(made.sessionId);
      await session.open(made.sessionId, made.prompt);
      await sessions.refresh();
      if (made.warning) problem(made.warning);
    } catch (error) {
      problem(`the session was not forked: ${(error as Error).message}`);
    } finally {
      forking = false;
    }
  };
  const sessions = sessionsView(api, { open, removed, problem });
  const session = sessionView(credentials, { changed: () => void sessions.refresh(), refused, problem, fork: (id) => void fork(id) });
  await sessions.refresh();
  const wanted = sessionInAddress();
  if (wanted) open(wanted);
  else sessions.mark(undefined);
}

fetchUiConfig()
  .then(start)
  .catch((error: Error) => problem(`the web UI could not start: ${error.message}`));
