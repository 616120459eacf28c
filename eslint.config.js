// Lint of the hand-written browser modules and their bundler (scripts/test.sh runs it; see package.json). The
// bundles it writes (components/*/dist/) are esbuild's output: not linted.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["components/**/dist/"] },
  js.configs.recommended,
  {
    files: ["components/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.browser } },
    rules: {
      "no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
      eqeqeq: ["error", "always"],
      "prefer-const": "error",
      "no-var": "error",
    },
  },
  {
    files: ["components/**/*.test.js", "components/testing/**/*.js", "scripts/*.mjs"],
    languageOptions: { globals: { ...globals.node } },
  },
];
