/**
 * `npm start`: builds the package, then runs the tour (scripts/demo.ts) against it.
 *
 * The build (contract lint, generated-code check, compile) prints nothing unless it fails:
 * a newcomer's first screen is the tour, not Redocly's banners. On failure its whole output
 * is shown and the tour does not run. Arguments (`npm start -- --write`) reach the tour.
 */
import { spawnSync } from "node:child_process";

const build = spawnSync("npm", ["run", "--silent", "build"], {
  encoding: "utf8",
  maxBuffer: 64 * 1024 * 1024,
  env: { ...process.env, NO_COLOR: "1", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", REDOCLY_TELEMETRY: "off" },
});
if (build.status !== 0) {
  process.stderr.write(`${build.stdout ?? ""}${build.stderr ?? ""}`);
  console.error(
    `\n✗ npm run build failed (${build.error?.message ?? `exit code ${build.status}`}); the tour did not run.`,
  );
  process.exit(1);
}

// Imported only now: the tour imports the package by name, which resolves to the fresh build.
await import("./demo.js");
