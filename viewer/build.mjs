// Bundles the viewer (src/main.js with three.js from node_modules) into OUTDIR (default
// ../build/release/viewer), where `emote-sim serve --http` and `emote-sim view` find it at
// runtime (server/daemon/http_listener.hpp, find_viewer_assets).
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const outdir = resolve(process.argv[2] ?? resolve(here, '../build/release/viewer'));
mkdirSync(outdir, { recursive: true });
await build({
  entryPoints: [resolve(here, 'src/main.js')],
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2022',
  outfile: resolve(outdir, 'app.js'),
  logLevel: 'warning',
});
for (const f of ['index.html', 'style.css']) {
  copyFileSync(resolve(here, 'src', f), resolve(outdir, f));
}
console.log(`viewer: built into ${outdir}`);
