// The one error of Google credentials, shared by every way of getting a token.
import { isHeaderToken, NOT_A_HEADER_TOKEN } from "../header-token.ts";

/** A Google credential that gives no token. `retryable`: the token server could not be reached or
 * failed on its side; anything else (a bad file, a refused grant) fails again the same way. */
export class GoogleAuthError extends Error {
  readonly retryable: boolean;
  constructor(message: string, retryable = false) {
    super(message);
    this.name = "GoogleAuthError";
    this.retryable = retryable;
  }
}

/** `token`, when it can go in a request's Authorization header; `named` says where it came from
 * (never the token itself). */
export function checkedToken(token: string, named: string): string {
  if (!isHeaderToken(token)) throw new GoogleAuthError(`${named} ${NOT_A_HEADER_TOKEN}`);
  return token;
}
