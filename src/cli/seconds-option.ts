/** A command-line option given in seconds (`--max-pause`, `--grace`), parsed by commander. */
import { InvalidArgumentError } from "commander";

/** Seconds from 0 to `max`; `Number(" ")` is 0, not a number given, so blank is refused. */
export const secondsOption =
  (name: string, max = Infinity) =>
  (value: string): number => {
    const n = value.trim() === "" ? NaN : Number(value);
    if (!Number.isFinite(n) || n < 0 || n > max) {
      throw new InvalidArgumentError(
        `${name} must be a number of seconds ${max === Infinity ? "≥ 0" : `from 0 to ${max}`}, got ${JSON.stringify(value)}.`,
      );
    }
    return n;
  };
