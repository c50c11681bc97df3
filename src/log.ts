// The structured logger (pino, JSON lines on stdout).
import pino, { type Logger } from "pino";
import type { Config } from "./config/index.ts";

export const createLogger = (config: Pick<Config, "LOG_LEVEL">): Logger =>
  pino({ level: config.LOG_LEVEL, base: { service: "cardlink" } });
