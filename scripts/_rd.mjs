import { rolldown } from "rolldown";
import { gzipSync } from "node:zlib";
const bundle = await rolldown({ input: "/tmp/cons/entry.js", platform: "browser", resolve: { symlinks: false } , logLevel: "silent"});
const { output } = await bundle.generate({ format: "esm", minify: true });
for (const o of output) if (o.type === "chunk") console.log(o.fileName, o.isEntry, o.isDynamicEntry, o.code.length, gzipSync(o.code, { level: 9 }).length, "imports:", o.imports.join(","), "dyn:", o.dynamicImports.join(","));
