// `make web`'s last step: bundle src/main.ts (and the generated code) into dist/app.js
// with esbuild, and copy the page and its style beside it. The gateway's web port serves
// dist/ (TRIAD_GATEWAY_WEB_ROOT).
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";

mkdirSync("dist", { recursive: true });
await build({
  entryPoints: ["src/main.ts"],
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: true,
  sourcemap: false,
  outfile: "dist/app.js",
  logLevel: "warning",
});
for (const name of ["index.html", "style.css"]) copyFileSync(`static/${name}`, `dist/${name}`);
console.log("web/dist: index.html, style.css, app.js");
