// The server's access log: a line for each HTTP request it answers (access-log.ts) and each
// WebSocket handshake (websocket.ts). A query's values are hidden here rather than left to the
// hiding of secrets the log does: a `?token=` may hold a token the server does not know (a wrong
// one), which is a secret still.
import type { LogLevel } from "./settings.ts";
import type { ServerLog } from "./writer.ts";

/** A request as its line shows it. */
export type Access = {
  method: string;
  /** Its path is shown, and its query's names, each with "***" for its value. */
  url: URL;
  /** The status answered; undefined when the client went away before any answer. */
  status: number | undefined;
  durationMs: number;
  /** What the answer took on the wire, its headers included. */
  bytes?: number;
  /** The Harness user whose token the request came with (HARNESS_TOKENS_FILE). */
  user?: string;
  address?: string;
  /** The client went away before the answer ended. */
  aborted?: boolean;
  level: LogLevel;
};

/** A query name shown as it is; another (a token sent as a name by mistake) is hidden too. */
const QUERY_NAME = /^[A-Za-z_][\w.-]{0,63}$/;

/** `url`'s path, and its query's names with "***" for each value: `/sessions?userId=***&token=***`. */
export function shownPath(url: URL): string {
  if (url.search === "") return url.pathname;
  const names = [...url.searchParams.keys()].map((name) => (QUERY_NAME.test(name) ? `${name}=***` : "***"));
  return `${url.pathname}?${names.join("&")}`;
}

/** Writes `access`'s line: `GET /sessions?userId=*** 200 in 4 ms, 1234 bytes, by ann from 10.0.0.7`. */
export function logAccess(log: ServerLog, access: Access): void {
  const path = shownPath(access.url);
  const durationMs = Math.round(access.durationMs);
  const size = access.bytes === undefined ? "" : `, ${access.bytes} bytes`;
  const by = access.user === undefined ? "" : ` by ${access.user}`;
  const gone = access.aborted ? `: the client went away before the answer ${access.status === undefined ? "began" : "ended"}` : "";
  log(`${access.method} ${path} ${access.status ?? "unanswered"} in ${durationMs} ms${size},${by} from ${access.address ?? "an unknown address"}${gone}`, {
    level: access.level,
    msg: access.aborted ? "the client of an HTTP request went away before its answer ended" : "answered an HTTP request",
    method: access.method,
    path,
    httpStatus: access.status,
    durationMs,
    bytes: access.bytes,
    user: access.user,
    address: access.address,
    ...(access.aborted && { aborted: true }),
  });
}
