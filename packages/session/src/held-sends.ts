// Sends held until a store write settles. From hold() until the flush given to releaseAfter has
// settled (stored or failed), what the session commits goes to the store first and to clients after:
// a client never sees a prompt that a host killed in between would not have. While holding:
// - each batch's frame is kept, in order, with the clients connected when it was committed;
// - an error frame to a client already connected queues behind those batches, so an error about a
//   later command comes after them; one to a client still joining is the caller's to send now;
// - a client that connects is not sent the held frames: it is welcomed (caught up) once they are out.
// On release each frame goes to those of its clients still connected, then the joiners are welcomed.
import type { Connection } from "./ports.ts";

export type HeldSendsPorts = {
  connected(conn: Connection): boolean;
  send(conn: Connection, frame: string): void;
  /** Catches a client up from `since` and tells it what every new client is told. */
  welcome(conn: Connection, since: number | undefined): void;
};

type Held = { frames: { frame: string; to: Connection[] }[]; joining: Map<Connection, number | undefined> };

export class HeldSends {
  readonly #ports: HeldSendsPorts;
  #held: Held | undefined;

  constructor(ports: HeldSendsPorts) {
    this.#ports = ports;
  }

  /** Starts holding; holding already, goes on. */
  hold(): void {
    this.#held ??= { frames: [], joining: new Map() };
  }

  /** Takes a client that connects at `since`; false when not holding (welcome it now). */
  join(conn: Connection, since: number | undefined): boolean {
    if (!this.#held) return false;
    this.#held.joining.set(conn, since);
    return true;
  }

  /** Holds a batch's frame for `connections` but those joining; false when not holding (send it now). */
  batch(frame: string, connections: Iterable<Connection>): boolean {
    const held = this.#held;
    if (!held) return false;
    held.frames.push({ frame, to: [...connections].filter((conn) => !held.joining.has(conn)) });
    return true;
  }

  /** Holds an error frame for `conn` behind the batches; false when not holding or `conn` is still
   * joining (send it now). */
  error(conn: Connection, frame: string): boolean {
    if (!this.#held || this.#held.joining.has(conn)) return false;
    this.#held.frames.push({ frame, to: [conn] });
    return true;
  }

  /** Releases what is held once `flushed` settles, whether the write worked or not (a failed write
   * tells clients it is not stored); not holding, does nothing. */
  releaseAfter(flushed: Promise<void>): void {
    if (this.#held) void flushed.then(() => this.#release(), () => this.#release());
  }

  /** Forgets what is held, sending none of it. */
  drop(): void {
    this.#held = undefined;
  }

  #release(): void {
    const held = this.#held;
    if (!held) return;
    this.#held = undefined;
    for (const { frame, to } of held.frames) {
      for (const conn of to) if (this.#ports.connected(conn)) this.#ports.send(conn, frame);
    }
    for (const [conn, since] of held.joining) {
      if (this.#ports.connected(conn)) this.#ports.welcome(conn, since);
    }
  }
}
