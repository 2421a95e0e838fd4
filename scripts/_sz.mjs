import { build } from "esbuild";
import { gzipSync } from "node:zlib";
const r = await build({ stdin: { contents: `export { createStoreAdminClient } from "./src/index.ts";`, resolveDir: "/work/main", loader: "js" },
 bundle: true, minify: true, format: "esm", platform: "neutral", mainFields: ["module","main"], write: false, metafile: true, logLevel: "silent",
 plugins: [{ name: "lazy-external", setup(b) { b.onResolve({ filter: /^\.\.?\/(errors|redact|logger)\.js$/ }, (a) => a.importer.endsWith("lazy.ts") ? ({ path: a.path, external: true }) : undefined); } }] });
for (const f of r.outputFiles) console.log(f.path, f.contents.byteLength, gzipSync(f.contents,{level:9}).byteLength);
const out = Object.values(r.metafile.outputs)[0];
for (const [k,v] of Object.entries(out.inputs).sort((a,b)=>b[1].bytesInOutput-a[1].bytesInOutput)) console.log(v.bytesInOutput, k);
import { writeFileSync } from "node:fs"; writeFileSync("/tmp/bundle.min.js", r.outputFiles[0].contents);
