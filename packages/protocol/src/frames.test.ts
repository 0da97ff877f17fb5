import { test } from "node:test";
import assert from "node:assert/strict";
import { parseClientFrame } from "./frames.ts";
import { MAX_FRAME_BYTES } from "./limits.ts";
import { COMMAND_TYPES } from "./wire.ts";

test("every command of the protocol parses", () => {
  const commands = [
    { type: "submit", prompt: "hi" },
    { type: "cancel" },
    { type: "steer", message: "also this" },
    { type: "approve", toolCallId: "t1" },
    { type: "deny", toolCallId: "t1", reason: "no" },
    { type: "resume", prompt: "go on", sessionId: "s1" },
    { type: "configure", config: { permissionMode: "acceptEdits", maxTurns: 3, model: "m", systemPrompt: "s", effort: "high" } },
    { type: "rewind", messageId: "m1", dryRun: true },
    { type: "stop-agent", toolCallId: "t1" },
    { type: "background", toolCallId: "t1" },
    { type: "kill-shell", shellId: "ab12cd" },
  ];
  const parsed = parseClientFrame(JSON.stringify({ type: "commands", commands }));
  assert.deepEqual(parsed.errors, []);
  assert.deepEqual(parsed.commands.map((c) => c.command.type), COMMAND_TYPES);
  // background's call is optional: every running Bash call.
  assert.deepEqual(parseClientFrame(JSON.stringify({ type: "commands", commands: [{ type: "background" }] })).errors, []);
});

test("a frame that is not JSON names the problem", () => {
  const { commands, errors } = parseClientFrame("{not json");
  assert.equal(commands.length, 0);
  assert.equal(errors[0].code, "bad_json");
  assert.match(errors[0].message, /not valid JSON/);
});

test("a frame without a commands array is rejected as a whole", () => {
  for (const raw of ['{"type":"hello"}', '{"type":"commands"}', "[]", "42", "null"]) {
    const { errors } = parseClientFrame(raw);
    assert.equal(errors.length, 1, raw);
    assert.equal(errors[0].code, "bad_frame", raw);
  }
});

test("each bad command gets its own error with its index; the good ones still parse", () => {
  const frame = {
    type: "commands",
    commands: [{ type: "submit" }, { type: "cancel" }, { type: "explode" }, "x", { type: "configure", config: { maxTurns: -1 } }],
  };
  const { commands, errors } = parseClientFrame(JSON.stringify(frame));
  assert.deepEqual(commands.map((c) => [c.index, c.command.type]), [[1, "cancel"]]);
  assert.deepEqual(errors.map((e) => [e.command, e.code]), [
    [0, "bad_command"],
    [2, "unknown_command"],
    [3, "bad_command"],
    [4, "bad_command"],
  ]);
  assert.match(errors[0].message, /submit: prompt/);
  assert.match(errors[1].message, /^unknown command type "explode": expected one of submit, cancel, steer, approve, deny, resume, configure, rewind, stop-agent, background, kill-shell$/);
  assert.equal(errors[2].message, 'a command must be an object with a "type", not a string');
  assert.match(errors[3].message, /config\.maxTurns/);
});

test("commands that are not objects, lack a type, or carry ids and reasons past their limits are named as such", () => {
  const commands = [
    null,
    [],
    42,
    { prompt: "hi" },
    { type: "x".repeat(5000) },
    { type: "approve", toolCallId: "t".repeat(201) },
    { type: "rewind", messageId: "" },
    { type: "deny", toolCallId: "t1", reason: "r".repeat(10_001) },
    { type: "deny", toolCallId: "t1", reason: "r".repeat(10_000) },
  ];
  const { commands: good, errors } = parseClientFrame(JSON.stringify({ type: "commands", commands }));
  assert.deepEqual(good.map((c) => c.index), [8]);
  assert.deepEqual(
    errors.map((e) => [e.command, e.code, e.message]),
    [
      [0, "bad_command", 'a command must be an object with a "type", not null'],
      [1, "bad_command", 'a command must be an object with a "type", not an array'],
      [2, "bad_command", 'a command must be an object with a "type", not a number'],
      [3, "bad_command", 'a command needs a "type": one of submit, cancel, steer, approve, deny, resume, configure, rewind, stop-agent, background, kill-shell'],
      [4, "unknown_command", `unknown command type "${"x".repeat(100)}"…: expected one of submit, cancel, steer, approve, deny, resume, configure, rewind, stop-agent, background, kill-shell`],
      [5, "bad_command", "approve: toolCallId: must be at most 200 characters"],
      [6, "bad_command", "rewind: messageId: must not be empty"],
      [7, "bad_command", "deny: reason: Too big: expected string to have <=10000 characters"],
    ],
  );
});

test("an empty or blank prompt or steer message and unknown config keys are rejected", () => {
  const { errors } = parseClientFrame(
    JSON.stringify({
      type: "commands",
      commands: [
        { type: "submit", prompt: "" },
        { type: "configure", config: { colour: "red" } },
        { type: "submit", prompt: " \n\t " },
        { type: "steer", message: "\n\n" },
      ],
    }),
  );
  assert.equal(errors.length, 4);
  assert.match(errors[1].message, /colour/);
  // The model API refuses a text block of whitespace alone: such a prompt could only fail.
  assert.deepEqual(
    [errors[0], errors[2], errors[3]].map((e) => e.message),
    ["submit: prompt: must not be empty or only whitespace", "submit: prompt: must not be empty or only whitespace", "steer: message: must not be empty or only whitespace"],
  );
});

test("an oversize frame is rejected before parsing", () => {
  const prompt = "é".repeat(MAX_FRAME_BYTES / 2 + 10);
  const { errors } = parseClientFrame(JSON.stringify({ type: "commands", commands: [{ type: "submit", prompt }] }));
  assert.equal(errors[0].code, "frame_too_large");
});

test("a field a command does not know is refused by name, never dropped", () => {
  const frame = (commands: unknown[], extra = {}) => parseClientFrame(JSON.stringify({ type: "commands", commands, ...extra }));
  // A misspelt dryRun must not turn a preview into a real rewind.
  const { commands, errors } = frame([{ type: "rewind", messageId: "m1", dry_run: true }, { type: "deny", toolCallId: "t", reasn: "no", why: 1 }, { type: "cancel" }]);
  assert.deepEqual(commands.map((c) => c.index), [2]);
  assert.deepEqual(errors, [
    { code: "bad_command", command: 0, message: 'rewind: command: unknown field "dry_run"' },
    { code: "bad_command", command: 1, message: 'deny: command: unknown fields "reasn", "why"' },
  ]);
  const envelope = frame([], { foo: 1 }).errors;
  assert.equal(envelope.length, 1);
  assert.match(envelope[0].message, /unknown field "foo"/);
});

test("a frame holds at most 100 commands", () => {
  const { commands, errors } = parseClientFrame(JSON.stringify({ type: "commands", commands: Array.from({ length: 101 }, () => ({ type: "cancel" })) }));
  assert.equal(commands.length, 0);
  assert.equal(errors.length, 1);
  assert.match(errors[0].message, /commands: must hold at most 100 commands/);
  assert.equal(parseClientFrame(JSON.stringify({ type: "commands", commands: Array.from({ length: 100 }, () => ({ type: "cancel" })) })).commands.length, 100);
});

test("text with a lone surrogate and a model id with spaces or controls are refused", () => {
  const { commands, errors } = parseClientFrame(
    JSON.stringify({
      type: "commands",
      commands: [
        { type: "submit", prompt: "hi \ud83d there" },
        { type: "steer", message: "fine 😀" },
        { type: "configure", config: { model: "claude\u0000x" } },
        { type: "configure", config: { model: "two words" } },
        { type: "configure", config: { model: "ollama/llama3.1:8b", systemPrompt: "\udc00" } },
        { type: "deny", toolCallId: "t", reason: "x\ud800" },
      ],
    }),
  );
  assert.deepEqual(commands.map((c) => c.index), [1]);
  assert.deepEqual(
    errors.map((e) => [e.command, e.message]),
    [
      [0, "submit: prompt: must be well-formed Unicode (it holds a lone surrogate)"],
      [2, "configure: config.model: must be a model id: no spaces or control characters"],
      [3, "configure: config.model: must be a model id: no spaces or control characters"],
      [4, "configure: config.systemPrompt: must be well-formed Unicode (it holds a lone surrogate)"],
      [5, "deny: reason: must be well-formed Unicode (it holds a lone surrogate)"],
    ],
  );
});

test("background and kill-shell with a missing, mistyped or overlong id are refused naming the field; the frame's other commands still parse", () => {
  const { commands, errors } = parseClientFrame(
    JSON.stringify({
      type: "commands",
      commands: [
        { type: "kill-shell" },
        { type: "kill-shell", shellId: 7 },
        { type: "background", toolCallId: "x".repeat(1000) },
        { type: "background", toolCallId: "t1", extra: true },
        { type: "cancel" },
      ],
    }),
  );
  assert.deepEqual(commands.map((c) => c.command.type), ["cancel"]);
  assert.deepEqual(errors.map((e) => e.command), [0, 1, 2, 3]);
  assert.match(errors[0].message, /shellId/);
  assert.match(errors[1].message, /shellId/);
  assert.match(errors[2].message, /toolCallId/);
  assert.match(errors[3].message, /extra/);
});
