import { inject } from "vitest";

/** Root URL of the Prism mock started by test/setup/prism.ts: pass it as `apiUrl`. */
export function prismUrl(): string {
  return inject("prismUrl");
}
