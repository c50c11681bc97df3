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
  // The layers (README, "Layers"): domain ← services ← transports. Each rule fails `npm run lint` if an
  // arrow comes back the wrong way.
  {
    files: ["src/domain/**"],
    rules: {
      "no-restricted-imports": ["error", {
        patterns: [{
          group: ["../*", "!../domain/**", "node:fs*", "node:net", "node:http*", "postgres", "@electric-sql/*", "kafkajs", "undici", "@faker-js/*"],
          message: "src/domain holds pure rules: it imports only other domain modules and I/O-free libraries.",
        }],
      }],
    },
  },
  {
    files: ["src/services/**"],
    rules: {
      "no-restricted-imports": ["error", {
        patterns: [{
          group: ["../api/**", "../dashboard/**", "../cli/**", "../main.ts", "../runtime.ts"],
          message: "Services sit below the transports: refuse with src/services/errors.ts, take a Ctx from src/services/context.ts.",
        }],
      }],
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
