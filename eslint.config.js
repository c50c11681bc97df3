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
// A feature (src/services/<feature>/) is met at its face, its index.ts: from outside src/services …
const FEATURE_FACE = {
  regex: "services/[a-z-]+/(?!index\\.ts$)",
  message: "Meet a feature at its face (src/services/<feature>/index.ts), not its insides.",
};
// … and from another feature.
const SIBLING_FACE = {
  regex: "^\\.\\./[a-z-]+/(?!index\\.ts$)",
  message: "A feature reaches another only through its face (src/services/<feature>/index.ts), never its insides.",
};
const BELOW_TRANSPORTS = {
  regex: "^\\.\\./\\.\\./(api|dashboard|cli|app|qualifier|workers|dispatcher|main\\.ts)(/|$)",
  message: "Services sit below the transports and the roles: refuse with src/domain/errors.ts, take a Ctx from src/platform/context.ts.",
};
const NO_SIMULATORS = {
  regex: "(^|/)simulators/",
  message: "The simulated networks are met over the bus; only src/services/simulator-control speaks their settings' contracts.",
};
// The service's client of the networks speaks the contracts of their settings (faults, traffic runs, the
// schemes' ids), nothing else of theirs.
const SIMULATOR_CONTRACTS = {
  regex: "simulators/(?!engine/(faults|settings|types)\\.ts$|schemes/index\\.ts$)",
  message: "src/services/simulator-control imports the simulators' settings contracts (engine/faults, engine/settings, engine/types, schemes/index) only.",
};
const OTHER_PAGE = "A dashboard page imports no other page: put what pages share in src/dashboard/components.";
const restrict = (...patterns) => ({ "no-restricted-imports": ["error", { patterns }] });

export default tseslint.config(
  { ignores: ["node_modules/", ".data/", ".stack/", "load/*.js", "coverage/", "dist/", "clients/typescript/dist/"] },
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
          message: "Business time comes from the service clock (src/platform/clock), not Date.now().",
        },
      ],
    },
  },
  // The layers (README, "Layers"): domain ← platform ← services (features) ← transports. Each block below
  // owns its files alone (flat config would let a later block replace an earlier one's patterns), and each
  // rule fails `npm run lint` if an arrow comes back the wrong way.
  {
    files: ["src/domain/**"],
    rules: restrict({
      group: ["../*", "!../domain/**", "node:fs*", "node:net", "node:http*", "postgres", "@electric-sql/*", "kafkajs", "undici", "@faker-js/*"],
      message: "src/domain holds pure rules: it imports only other domain modules and I/O-free libraries.",
    }),
  },
  // src/platform is the infrastructure every feature stands on (database, migrations, bus, clock, config,
  // health, log, metrics, outboxes): it imports only itself and the domain.
  {
    files: ["src/platform/**"],
    rules: restrict({
      regex: "^(\\.\\./)+(services|api|dashboard|cli|app|qualifier|workers|dispatcher|main\\.ts)(/|$)|simulators/",
      message: "src/platform is infrastructure: it imports only src/platform and src/domain, never a feature, a transport or the simulators.",
    }),
  },
  // The features import the domain, the platform and each other's faces.
  {
    files: ["src/services/**"],
    ignores: ["src/services/simulator-control/**"],
    rules: restrict(BELOW_TRANSPORTS, SIBLING_FACE, NO_SIMULATORS),
  },
  {
    files: ["src/services/simulator-control/**"],
    rules: restrict(BELOW_TRANSPORTS, SIBLING_FACE, SIMULATOR_CONTRACTS),
  },
  // The simulated networks are the other side of the bus: their engine and scheme adapters know the
  // service only through the bus's contracts (schemas, topics, the Bus and Clock interfaces) and the domain's
  // rules; the host glue (simulators/host: hub, store, dry run) runs them on the platform.
  {
    files: ["simulators/engine/**", "simulators/schemes/**"],
    rules: restrict({
      regex: "^\\.\\./\\.\\./src/(?!domain/|platform/bus/(bus|messages|messages\\.generated|validators\\.generated|topics|dead-letter|avro)\\.ts$|platform/clock/(index|environment)\\.ts$)|^\\.\\./host/",
      message: "The simulators' engine and schemes import only the bus contracts and src/domain, never the service or the host glue.",
    }),
  },
  {
    files: ["simulators/host/**"],
    rules: restrict(
      { regex: "^\\.\\./\\.\\./src/(?!domain/|platform/)", message: "The simulators' host runs them on src/platform and src/domain only; the service is met over the bus." },
    ),
  },
  // Nothing reaches into a role: the qualifier is started through src/qualifier/index.ts, the simulators
  // through simulators/host. And nothing imports the command line (src/cli), the outermost transport, but
  // its entry (src/main.ts); the simulators' commands are src/cli/commands, not theirs.
  {
    files: ["src/**"],
    ignores: ["src/qualifier/**", "src/domain/**", "src/platform/**", "src/services/**", "src/cli/**", "src/main.ts", "src/dashboard/pages/**"],
    rules: restrict(ROLE_INTERNALS, COMMAND_LINE, FEATURE_FACE),
  },
  // A dashboard page (a file of src/dashboard/pages, or a folder of it whose files make one page) imports no
  // other page: what two pages share is in src/dashboard/components.
  {
    files: ["src/dashboard/pages/*"],
    rules: restrict(ROLE_INTERNALS, COMMAND_LINE, FEATURE_FACE, { regex: "^\\./", message: OTHER_PAGE }),
  },
  {
    files: ["src/dashboard/pages/*/**"],
    rules: restrict(ROLE_INTERNALS, COMMAND_LINE, FEATURE_FACE, { regex: "^\\.\\./(?!\\.\\./)", message: OTHER_PAGE }),
  },
  {
    files: ["src/cli/**", "src/main.ts"],
    rules: restrict(ROLE_INTERNALS, FEATURE_FACE),
  },
  // The dashboard stands on the API (it reaches it through the port it is given); the API does not know it:
  // the composition root mounts it (src/app/http.ts createWebApp).
  {
    files: ["src/api/**"],
    rules: restrict(ROLE_INTERNALS, COMMAND_LINE, FEATURE_FACE, {
      group: ["**/dashboard/*"],
      message: "The API does not import the dashboard: the composition root mounts it beside the API (src/app/http.ts).",
    }),
  },
  {
    files: ["src/qualifier/**"],
    rules: restrict(COMMAND_LINE, FEATURE_FACE),
  },
  // The composition root (src/app) is the one place that opens the database, the bus and the clock and
  // starts the roles; the entry points (src/main.ts and the commands of src/cli, the tests, the benchmarks)
  // call it. Below it, nothing imports it: code declares what it is given (the API's ApiServices).
  {
    files: ["src/**", "simulators/host/**"],
    ignores: ["src/app/**", "src/main.ts", "src/cli/**"],
    rules: {
      "@typescript-eslint/no-restricted-imports": ["error", {
        patterns: [
          {
            group: ["**/app/*"],
            message: "src/app is the composition root: only entry points import it; below it, code declares what it is given (the API: ApiServices in src/api/context.ts).",
          },
          {
            group: ["**/platform/db.ts", "./db.ts"],
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
    files: ["src/platform/clock/**", "test/**", "bench/**", "src/platform/log.ts", "src/dispatcher/sign*.ts"],
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
  {
    // The k6 runner is plain JavaScript: its VUs are worker threads, which load no TypeScript loader.
    files: ["load/runner/**/*.js"],
    languageOptions: {
      globals: Object.fromEntries(
        ["process", "URL", "URLSearchParams", "fetch", "AbortSignal", "performance", "setTimeout", "clearTimeout", "setInterval", "clearInterval"].map(
          (name) => [name, "readonly"],
        ),
      ),
    },
  },
);
