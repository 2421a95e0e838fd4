/**
 * The names of the files generated one per schema or per operation (`generated/testing/ops/`,
 * `generated/validators/responses/`, `generated/validators/schemas/`): a key that does not move
 * when other schemas or operations are added, and that no two names share, even on a file
 * system that ignores case. It is the checked identifier (never unchecked contract text, so no
 * path is built from it), lower-cased and cut short, with a short hash of the exact name:
 * `getUser` → `getuser_a1b2c3d4`, `GetUser` → `getuser_5e6f7a8b`.
 */
import { createHash } from "node:crypto";

/** Characters of the identifier kept in the key: enough to read, short enough for any file system. */
const READABLE_LENGTH = 40;

/** The file key of `identifier` (a checked identifier, `[A-Za-z_$][\w$]*`), made unique by the hash of `exactName`. */
export function fileKey(identifier: string, exactName: string): string {
  if (!/^[A-Za-z_$][\w$]*$/.test(identifier))
    throw new Error(`fileKey: ${JSON.stringify(identifier)} is not a checked identifier.`);
  const readable = identifier.toLowerCase().replace(/\$/g, "_").slice(0, READABLE_LENGTH);
  return `${readable}_${createHash("sha256").update(exactName).digest("hex").slice(0, 8)}`;
}
