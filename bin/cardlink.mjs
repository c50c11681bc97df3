#!/usr/bin/env node
// The `cardlink` command when the package is installed: runs the TypeScript CLI through tsx.
import { register } from "tsx/esm/api";

register();
await import("../src/main.ts");
