/**
 * The page server of the browser runtime tests: on 127.0.0.1 (a free port), a page that maps
 * the package's names to the built `dist/` and openapi-fetch's ESM with an import map, and runs
 * one script. It serves nothing outside those folders. Shared by test/runtimes/ and
 * test/testing/runtimes.test.ts.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { basename, extname, join, normalize, sep } from "node:path";
import { ROOT } from "../package/tarball.js";

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
};

/** URL prefixes and the directories they serve. */
const MOUNTS: Array<{ prefix: string; dir: string }> = [
  { prefix: "/sdk/", dir: join(ROOT, "dist") },
  { prefix: "/openapi-fetch/", dir: join(ROOT, "node_modules", "openapi-fetch", "dist") },
];

/** Every subpath of the package, as the import map names it. */
const IMPORTS = {
  "store-admin-sdk": "/sdk/src/index.js",
  "store-admin-sdk/testing": "/sdk/src/testing/index.js",
  // The package's private subpath import (package.json `imports`), through which the other
  // entries share the main entry's modules: an import map names it as a bundler resolves it.
  "#shared": "/sdk/src/shared.js",
  "openapi-fetch": "/openapi-fetch/index.mjs",
};

/** Serves a page titled `title` that runs `script` (an `.mjs` file) as a module. */
export async function startPageServer(title: string, script: string): Promise<{ url: string; server: Server }> {
  const scriptPath = `/${basename(script)}`;
  const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${title}</title>
<script type="importmap">
${JSON.stringify({ imports: IMPORTS })}
</script>
<script type="module" src="${scriptPath}"></script>
</head>
<body></body>
</html>
`;
  const server = createServer((request, response) => {
    void (async () => {
      const path = decodeURIComponent(new URL(request.url ?? "/", "http://127.0.0.1").pathname);
      if (path === "/") {
        response.writeHead(200, { "content-type": CONTENT_TYPES[".html"]!, "cache-control": "no-store" });
        response.end(page);
        return;
      }
      let file = path === scriptPath ? script : undefined;
      for (const mount of MOUNTS) {
        if (!path.startsWith(mount.prefix)) continue;
        const candidate = normalize(join(mount.dir, path.slice(mount.prefix.length)));
        if (candidate.startsWith(mount.dir + sep)) file = candidate;
      }
      const type = file ? CONTENT_TYPES[extname(file)] : undefined;
      if (!file || !type || !existsSync(file)) {
        response.writeHead(404, { "content-type": "text/plain" });
        response.end(`not found: ${path}`);
        return;
      }
      response.writeHead(200, { "content-type": type, "cache-control": "no-store" });
      response.end(await readFile(file));
    })().catch((error: unknown) => {
      response.writeHead(500, { "content-type": "text/plain" });
      response.end(String(error));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
