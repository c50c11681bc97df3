// Lint rules for the whole tree; part of `npm test`.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

const ROLE_INTERNALS = {
  group: ["**/qualifier/*", "!**/qualifier/index.ts", "**/simulators/*", "!**/simulators/host"],
  message: "Use a role's entry (src/qualifier/index.ts, simulators/host/*), not its internals.",
};
const COMMAND_LINE = {
  group: ["**/cli/*"],
  message: "Nothing imports the command line (src/cli) but its entry, src/main.ts: put what a command shares with another module below it.",
};

export default tseslint.config(
  { ignores: ["node_modules/", ".data/", ".stack/", "load/**/*.js", "coverage/", "dist/", "clients/typescript/dist/"] },
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
          group: ["../api/**", "../dashboard/**", "../cli/**", "../main.ts", "../app/**", "../qualifier/*", "../../simulators/*", "!../../simulators/host"],
          message: "Services sit below the transports and the roles: refuse with src/domain/errors.ts, take a Ctx from src/services/context.ts, reach the simulators through simulators/host.",
        }],
      }],
    },
  },
  // The simulated networks are the other side of the bus: their engine and scheme adapters know the
  // service only through the bus's contracts (schemas, topics, the Bus and Clock interfaces) and the domain's
  // rules. The host glue (simulators/host: CLI, control, hub) is how the service runs and talks to them.
  {
    files: ["simulators/engine/**", "simulators/schemes/**"],
    rules: {
      "no-restricted-imports": ["error", {
        patterns: [{
          // gitignore-style, in order: everything of src but the domain, the bus's contracts and the Clock.
          group: [
            "../../src/*", "!../../src/domain", "!../../src/bus", "!../../src/clock",
            "../../src/bus/*", "!../../src/bus/bus.ts", "!../../src/bus/messages.ts", "!../../src/bus/messages.generated.ts",
            "!../../src/bus/validators.generated.ts", "!../../src/bus/topics.ts", "!../../src/bus/dead-letter.ts",
            "!../../src/bus/avro.ts",
            "../../src/clock/*", "!../../src/clock/index.ts", "../host/*",
          ],
          message: "The simulators' engine and schemes import only the bus contracts and src/domain, never the service or the host glue.",
        }],
      }],
    },
  },
  // Nothing reaches into a role: the qualifier is started through src/qualifier/index.ts, the simulators
  // through simulators/host. And nothing imports the command line (src/cli), the outermost transport, but
  // its entry (src/main.ts); the simulators' commands are src/cli/commands, not theirs.
  {
    files: ["src/**"],
    ignores: ["src/qualifier/**", "src/domain/**", "src/services/**", "src/cli/**", "src/main.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: [ROLE_INTERNALS, COMMAND_LINE] }] },
  },
  {
    files: ["src/cli/**", "src/main.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: [ROLE_INTERNALS] }] },
  },
  {
    files: ["src/qualifier/**", "simulators/host/**"],
    rules: { "no-restricted-imports": ["error", { patterns: [COMMAND_LINE] }] },
  },
  // The composition root (src/app) is the one place that opens the database, the bus and the clock and
  // starts the roles; the entry points (src/main.ts and the commands of src/cli, the tests, the benchmarks)
  // call it. Below it, code takes the Services it built (as a type) and never builds its own.
  {
    files: ["src/**", "simulators/host/**"],
    ignores: ["src/app/**", "src/main.ts", "src/cli/**"],
    rules: {
      "@typescript-eslint/no-restricted-imports": ["error", {
        patterns: [
          {
            group: ["**/app/*"],
            allowTypeImports: true,
            message: "src/app is the composition root: only entry points call it; take its Services as a type.",
          },
          {
            group: ["**/services/db.ts", "./db.ts"],
            importNames: ["openPglite", "openPostgres"],
            message: "The database is opened by the composition root (src/app) and arrives in the services.",
          },
          {
            group: ["**/bus/index.ts"],
            message: "The bus is opened by the composition root (src/app) and arrives in the services.",
          },
          {
            group: ["**/bus/embedded-log.ts", "**/bus/kafka.ts"],
            importNames: ["createEmbeddedLog", "createKafkaBus"],
            message: "The bus is opened by the composition root (src/app) and arrives in the services.",
          },
          {
            group: ["**/clock/index.ts"],
            importNames: ["createClock"],
            message: "The service clock is made by the composition root (src/app) and arrives in the services.",
          },
        ],
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
    files: ["bin/**", "scripts/**/*.mjs", "*.config.*", "eslint.config.js"],
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly" } },
  },
);
