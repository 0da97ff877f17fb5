// Who the page acts as: the token (when the server has one) and the user id. The token comes from
// the page's ?token= (then removed from the address bar, as it would otherwise stay in the history
// and in bookmarks), else from sessionStorage (this tab only, gone with it); the user id from
// localStorage, else the server's default (GET /ui/config.json gives one to pages of a server
// without a token: the user id a `harness` chat on that machine uses).
import { idProblem } from "@harness/protocol/client-side";

const TOKEN_KEY = "harness.token";
const USER_KEY = "harness.userId";

/** What GET /ui/config.json says. */
export type UiConfig = { tokenRequired: boolean; defaultUser?: string };

export type Credentials = { userId: string; token?: string };

export async function fetchUiConfig(): Promise<UiConfig> {
  const response = await fetch("/ui/config.json", { cache: "no-store" });
  if (!response.ok) throw new Error(`GET /ui/config.json answered ${response.status}`);
  const body = (await response.json()) as Partial<UiConfig>;
  return { tokenRequired: body.tokenRequired === true, ...(typeof body.defaultUser === "string" && { defaultUser: body.defaultUser }) };
}

/** Takes ?token= out of the address (kept in sessionStorage), and answers what is known. */
export function storedCredentials(config: UiConfig): { userId?: string; token?: string } {
  const url = new URL(location.href);
  const fromUrl = url.searchParams.get("token");
  if (fromUrl !== null) {
    url.searchParams.delete("token");
    history.replaceState(history.state, "", url);
    if (fromUrl !== "") sessionStorage.setItem(TOKEN_KEY, fromUrl);
  }
  const token = config.tokenRequired ? (sessionStorage.getItem(TOKEN_KEY) ?? undefined) : undefined;
  const userId = localStorage.getItem(USER_KEY) ?? config.defaultUser;
  return { ...(userId && !idProblem(userId) && { userId }), ...(token && { token }) };
}

export function remember(credentials: Credentials): void {
  localStorage.setItem(USER_KEY, credentials.userId);
  if (credentials.token) sessionStorage.setItem(TOKEN_KEY, credentials.token);
}

/** Forgets the token (refused, or the user signs out); the user id stays as the form's default. */
export function forgetToken(): void {
  sessionStorage.removeItem(TOKEN_KEY);
}

/** What is wrong with a user id typed in, or undefined. */
export function userIdProblem(userId: string): string | undefined {
  const problem = idProblem(userId);
  return problem && `user id ${problem}`;
}
