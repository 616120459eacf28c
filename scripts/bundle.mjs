// The browser components' bundles: each component's ES modules (components/<name>/*.js, real imports) built by
// esbuild (pinned in package-lock.json) into one minified ES module, components/<name>/dist/<bundle>.js, which is
// committed and is what the Python side sends to the browser (a v2 component is one module, sent inline: nothing
// is built at install or run time, nothing is fetched).
//
//   npm run build            # rebuild every bundle (after changing a component's modules)
//   npm run check:bundles    # fail, naming them, when a committed bundle is not what its modules build to
//
// Run from anywhere: the paths are the repository's.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/** entry module -> bundle, both relative to components/ */
export const BUNDLES = {
  "merge_player/player.js": "merge_player/dist/player.js", // the player (core.js and its parts)
  "merge_player/mailbox.js": "merge_player/dist/mailbox.js", // the player's window, control and live room
  "tokenize_view/tokenize.js": "tokenize_view/dist/view.js", // the Tokenize view
  "tokenize_view/mail.js": "tokenize_view/dist/mail.js", // its mailbox
  "copy_link/copy_link.js": "copy_link/dist/copy_link.js",
  "pick_table/pick_table.js": "pick_table/dist/pick_table.js",
  "reveal/reveal.js": "reveal/dist/reveal.js",
};

/** @type {import("esbuild").BuildOptions} */
const OPTIONS = {
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: true,
  charset: "utf8", // ▶ ⏸ → … as they are, not \u escapes
  legalComments: "none",
  write: false,
  logLevel: "warning",
};

/**
 * Every bundle as its modules build it now.
 * @returns {Promise<Array<{ entry: string, out: string, text: string }>>}
 */
export async function buildAll() {
  const built = [];
  for (const [entry, out] of Object.entries(BUNDLES)) {
    const result = await esbuild.build({
      ...OPTIONS,
      // (a first line of its own: Streamlit takes a one-line js= string without a line break for a file's path)
      banner: { js: `// BPE Lab: components/${entry} and the modules it imports, bundled by esbuild (npm run build).` },
      absWorkingDir: ROOT,
      entryPoints: [join("components", entry)],
      outfile: join("components", out),
    });
    built.push({ entry, out, text: result.outputFiles[0].text });
  }
  return built;
}

/** @param {string} path */
function readOrNull(path) {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

async function main() {
  const check = process.argv.includes("--check");
  const stale = [];
  for (const { out, text } of await buildAll()) {
    const path = join(ROOT, "components", out);
    if (readOrNull(path) === text) continue;
    if (check) stale.push(relative(process.cwd(), path));
    else {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
      console.log(`built ${relative(process.cwd(), path)} (${text.length.toLocaleString("en-US")} bytes)`);
    }
  }
  if (stale.length) {
    console.error(`not what their modules build to: ${stale.join(", ")}. Rebuild them with \`npm run build\` ` +
      "and commit them.");
    process.exit(1);
  }
  if (check) console.log(`bundles: ${Object.keys(BUNDLES).length} up to date`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
