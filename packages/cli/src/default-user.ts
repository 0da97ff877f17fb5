// Whose conversations a command on this machine works with, when no --user names one.
import { userInfo } from "node:os";
import { idProblem } from "@harness/protocol/client-side";

/** The user id a chat uses when none is given: $HARNESS_USER, else the login name if it is a valid
 * id. `harness run` reads the local chats of that user. */
export function defaultUser(env: NodeJS.ProcessEnv): string {
  if (env.HARNESS_USER) return env.HARNESS_USER;
  try {
    const name = userInfo().username;
    if (idProblem(name) === undefined) return name;
  } catch {
    // No login name (a container without a passwd entry).
  }
  return "me";
}
