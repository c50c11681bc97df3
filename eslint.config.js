// Lint rules for the whole tree; part of `npm test`.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/", ".data/", ".stack/", "load/**/*.js", "coverage/", "dist/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      "no-restricted-syntax": [
        "error",
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: "Business time comes from the service clock (src/clock), not Date.now().",
        },
      ],
    },
  },
  {
    files: ["src/clock/**", "test/**", "bench/**", "src/log.ts", "src/webhooks/sign*.ts"],
    rules: { "no-restricted-syntax": "off" },
  },
  {
    files: ["src/dashboard/assets/*.js"],
    languageOptions: { globals: { window: "readonly", document: "readonly", EventSource: "readonly" } },
  },
  {
    files: ["bin/**", "*.config.*", "eslint.config.js"],
    languageOptions: { globals: { process: "readonly", console: "readonly" } },
  },
);
