// The form that asks for the token (when the server has one) and the user id, once per tab.
import type { SessionsApi } from "@harness/client";
import { createSessionsApi, SessionsApiError } from "@harness/client";
import { byId, setText } from "./dom.ts";
import { remember, userIdProblem, type Credentials, type UiConfig } from "./credentials.ts";

/** Shows the form (filled with what is known, `why` above it) until the server takes what was typed
 * in: resolves with it then, remembered. */
export function askCredentials(config: UiConfig, known: { userId?: string; token?: string }, why?: string): Promise<{ credentials: Credentials; api: SessionsApi }> {
  const form = byId<HTMLFormElement>("sign-in");
  const token = byId<HTMLInputElement>("sign-in-token");
  const user = byId<HTMLInputElement>("sign-in-user");
  const problem = byId("sign-in-problem");
  byId("sign-in-token-row").hidden = !config.tokenRequired;
  token.required = config.tokenRequired;
  token.value = known.token ?? "";
  user.value = known.userId ?? "";
  setText(problem, why ?? "");
  form.hidden = false;
  byId("app").hidden = true;
  (config.tokenRequired && !known.token ? token : user).focus();
  return new Promise((resolve) => {
    const onSubmit = async (event: Event) => {
      event.preventDefault();
      const credentials: Credentials = { userId: user.value.trim(), ...(config.tokenRequired && { token: token.value.trim() }) };
      const bad = userIdProblem(credentials.userId) ?? (config.tokenRequired && !credentials.token ? "the server needs its token" : undefined);
      if (bad) return setText(problem, bad);
      setText(problem, "checking…");
      const refused = await tryCredentials(credentials);
      if (typeof refused === "string") return setText(problem, refused);
      form.removeEventListener("submit", onSubmit);
      form.hidden = true;
      remember(credentials);
      resolve({ credentials, api: refused });
    };
    form.addEventListener("submit", onSubmit);
  });
}

/** The sessions API when the server takes the credentials (it lists the user's sessions with them),
 * else why not, in the server's words. */
export async function tryCredentials(credentials: Credentials): Promise<SessionsApi | string> {
  let api: SessionsApi;
  try {
    api = createSessionsApi({ url: location.origin, ...credentials });
    await api.list();
    return api;
  } catch (error) {
    if (error instanceof SessionsApiError && error.status === 401) return "the server refused the token: check it and try again";
    return (error as Error).message;
  }
}
