// A number or a switch in an environment variable, a number read so that the problem with a bad value
// can be told (see settings.ts), while the code that reads it goes on with its default.

import { switchOn } from "@harness/llm/env-switch";

type Env = Readonly<Record<string, string | undefined>>;

/** Whether the variable `name` turns a switch on: 1, true, yes or on, in any case (Claude Code's). */
export const envSwitch: (env: Env, name: string) => boolean = switchOn;

/** A number read from the environment: `value` when set and usable, `problem` when set and not. */
export type EnvSetting = { value?: number; problem?: string };

/** The variable `name` as a finite number (as `Number` reads it) that `fits`; unset or blank: no
 * value; anything else: a problem saying that it must be `expected`. */
export function numberSetting(env: Env, name: string, fits: (value: number, text: string) => boolean, expected: string): EnvSetting {
  const text = env[name]?.trim();
  if (!text) return {};
  const value = Number(text);
  return Number.isFinite(value) && fits(value, text) ? { value } : { problem: `${name} must be ${expected}, got ${JSON.stringify(env[name])}` };
}

/** The variable `name` as a whole number of `unit`, at least `min`; unset or blank: no value. */
export function wholeSetting(env: Env, name: string, unit: string, min: number): EnvSetting {
  return numberSetting(env, name, (value, text) => /^\d{1,9}$/.test(text) && value >= min, `a whole number of ${unit}`);
}
