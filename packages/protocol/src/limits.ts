// Limits both sides of the WebSocket know: the server refuses a frame past them, a client can check
// before sending. Free of zod, so that browser clients can import them (see client-side.ts).

/** Largest client frame accepted, in bytes of UTF-8 text. */
export const MAX_FRAME_BYTES = 1024 * 1024;

/** Most commands one frame may carry: every one of them can be answered by a frame of its own. */
export const MAX_COMMANDS_PER_FRAME = 100;

/** Most turns a run may be given (a query's, a configure's, a session's config). */
export const MAX_TURNS_LIMIT = 10_000;

/** Whether `text` takes more than MAX_FRAME_BYTES in UTF-8. */
export function frameTooLarge(text: string): boolean {
  // No UTF-16 unit takes more than 3 bytes, so most frames need no encoding pass.
  return text.length * 3 > MAX_FRAME_BYTES && new TextEncoder().encode(text).length > MAX_FRAME_BYTES;
}
