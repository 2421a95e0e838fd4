/** An input error: the message names the file, the line and what is wrong. */
export class InputError extends Error {
  override name = "InputError";
}
