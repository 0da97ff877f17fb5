// A WebSocket channel at a path of its own beside /ws (the Open Harness API's sessions.connect):
// the endpoint checks its handshake's token as for /ws, then hands the rest to the channel. Its
// sockets are pinged, closed when the server stops and when their token is revoked, as /ws's are.
import type { IncomingHttpHeaders } from "node:http";
import type { RawData, WebSocket } from "ws";

export type ChannelOpening =
  | { refused: { status: number; message: string } }
  | {
      /** Whose session the socket is of (checked again when the tokens change). */
      userId: string;
      sessionId: string;
      /** Takes the socket once the handshake is done; the channel answers its messages. */
      attach(ws: WebSocket): void;
    };

export type WebSocketChannel = {
  /** Whether the channel is the one at `url`'s path. */
  at(url: URL): boolean;
  /** Checks the handshake (its path, its query, its user), which the token let in as `tokenUser`
   * (undefined for the shared token or a server without one): a refusal (an HTTP status and why),
   * or what takes the socket. */
  open(url: URL, headers: IncomingHttpHeaders, tokenUser: string | undefined): Promise<ChannelOpening>;
};

/** A text frame's data as a string, however ws hands it over. */
export function frameText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.isBuffer(data) ? data.toString("utf8") : Buffer.from(data).toString("utf8");
}
