// ESLint: typescript-eslint's type-checked recommended rules over the TypeScript sources and tests.
// Formatting is Prettier's (`npm run format`); this config has no style rules.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "coverage/**", "bench/**", "**/*.js", "**/*.mjs", "**/*.cjs"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { project: ["./tsconfig.json"], tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Async functions that implement a Promise-returning shape (Snapshot.list, the command table) stay
      // async without an await: a throw inside becomes a rejection the caller already handles, where a
      // hand-written Promise.resolve() would let it escape synchronously.
      "@typescript-eslint/require-await": "off",
      // kvgate matches control characters on purpose: it escapes them before anything reaches a
      // terminal (src/secrets/shown.ts) and refuses them in env values and names.
      "no-control-regex": "off",
      // `_name` marks a value left out on purpose (a destructured field dropped from a copy).
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" },
      ],
    },
  },
  {
    // Tests read the JSON kvgate prints (and SARIF, and the Action's outputs) and assert on it field by
    // field: typing every parsed document would restate the contract's schema in each test, and an
    // assertion on a missing field fails the test anyway. The rest of the type-checked set holds.
    files: ["test/**"],
    rules: {
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-explicit-any": "off",
    },
  },
);
