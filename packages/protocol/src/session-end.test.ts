import { test } from "node:test";
import assert from "node:assert/strict";
import { leftCloseReason, leftReasonOf } from "./session-end.ts";

test("a client's way of leaving goes through its close frame's reason; anything else says nothing", () => {
  assert.equal(leftReasonOf(leftCloseReason("prompt_input_exit")), "prompt_input_exit");
  assert.equal(leftReasonOf(leftCloseReason("other")), "other");
  for (const said of ["client closed", "left: bored", "left:prompt_input_exit", ""]) assert.equal(leftReasonOf(said), undefined, said);
});
