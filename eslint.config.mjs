// Lint rules: typescript-eslint's recommended set and no `any`; functions under a complexity limit and
// lines within 120 columns (long user-facing strings exempt: messages stay whole and greppable); the
// layer order and import cycles are dependency-cruiser's (.dependency-cruiser.cjs); formatting is
// prettier's (printWidth 120), so eslint-config-prettier turns the other style rules off.
import eslint from "@eslint/js";
import tseslint from "typescript-eslint";
import prettier from "eslint-config-prettier";

export default tseslint.config(
  { ignores: ["dist/**", "dist-web/**", "node_modules/**", "coverage/**", "examples/**/out/**"] },
  eslint.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" },
      ],
    },
  },
  {
    // Every file the program reads goes through src/util/inputFile.ts, which refuses devices, FIFOs
    // and directories and caps sizes (README.md "Input and output files").
    files: ["src/**/*.ts"],
    ignores: ["src/util/inputFile.ts"],
    rules: {
      "no-restricted-properties": [
        "error",
        ...["readFileSync", "readFile", "createReadStream"].map((property) => ({
          object: "fs",
          property,
          message: "read files with readInputFile/readInputBytes of src/util/inputFile.ts",
        })),
      ],
      "no-restricted-imports": [
        "error",
        {
          paths: ["node:fs", "fs", "node:fs/promises", "fs/promises"].map((name) => ({
            name,
            importNames: ["readFileSync", "readFile", "createReadStream"],
            message: "read files with readInputFile/readInputBytes of src/util/inputFile.ts",
          })),
        },
      ],
    },
  },
  {
    files: ["**/*.mjs", "**/*.js"],
    languageOptions: {
      globals: {
        process: "readonly",
        console: "readonly",
        URL: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
      },
    },
  },
  {
    files: ["**/*.cjs"],
    languageOptions: { sourceType: "commonjs", globals: { module: "writable", require: "readonly" } },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  prettier,
  {
    // After prettier's config, which turns max-len off. Complexity instead of size caps: a long
    // function with one straight path is fine, a short one with forty branches is not.
    files: ["**/*.ts", "**/*.mjs", "**/*.cjs"],
    rules: {
      complexity: ["error", 20],
      "max-len": [
        "error",
        { code: 120, ignoreUrls: true, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true },
      ],
    },
  },
);
