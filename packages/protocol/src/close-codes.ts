// Close codes of the server's WebSockets that tell a client to stop reconnecting (4000 and up are
// the application's own: RFC 6455 §7.4.2).

/** The server no longer takes the token the socket was opened with (its HARNESS_TOKENS_FILE
 * changed): retrying with it cannot succeed. */
export const TOKEN_REFUSED_CLOSE = 4401;
