// Text from outside, whether a client's or the session's to its runner.
import { z } from "zod";

/** A string that can be encoded as UTF-8: a lone surrogate cannot (it would be stored, sent to the
 * model and shown back as U+FFFD, or refused by the model's API as a failed run). */
export const wellFormedText = () => z.string().refine((value) => value.isWellFormed(), "must be well-formed Unicode (it holds a lone surrogate)");
