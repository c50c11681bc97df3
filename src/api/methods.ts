// 405 with its Allow header for a method a path does not answer, decided before routing could take the
// request to a parameterised path.
import type { MiddlewareHandler } from "hono";
import { ApiError } from "./errors.ts";

const routePattern = (path: string) =>
  new RegExp(`^${path.split("/").map((seg) => (seg.startsWith(":") ? "[^/]+" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))).join("/")}$`);

const methodNotAllowed = (method: string, path: string, allowed: string[]) =>
  new ApiError("method_not_allowed", `${method} is not allowed on ${path}; use ${allowed.join(", ")}.`, { Allow: allowed.join(", ") });

/**
 * The 405 middleware, answering from the route table `learn` is given once every route is mounted.
 * The methods each route path answers (HEAD with GET); a path is matched by its most specific route
 * paths (fewest parameters): /transactions/test is not /transactions/{transactionId}.
 */
export function methodTable(): { middleware: MiddlewareHandler; learn(appRoutes: { method: string; path: string }[]): void } {
  let allowedMethods: (path: string) => string[] = () => [];
  return {
    middleware: async (c, next) => {
      const allowed = allowedMethods(c.req.path);
      if (allowed.length > 0 && !allowed.includes(c.req.method)) throw methodNotAllowed(c.req.method, c.req.path, allowed);
      await next();
    },
    learn(appRoutes) {
      const routes = new Map<string, { pattern: RegExp; params: number; methods: Set<string> }>();
      for (const { method, path } of appRoutes) {
        if (method === "ALL" || path.includes("*")) continue;
        const entry = routes.get(path) ?? { pattern: routePattern(path), params: (path.match(/:/g) ?? []).length, methods: new Set<string>() };
        entry.methods.add(method);
        if (method === "GET") entry.methods.add("HEAD");
        routes.set(path, entry);
      }
      allowedMethods = (path: string): string[] => {
        const matching = [...routes.values()].filter((route) => route.pattern.test(path));
        const fewest = Math.min(...matching.map((route) => route.params));
        return [...new Set(matching.filter((route) => route.params === fewest).flatMap((route) => [...route.methods]))];
      };
    },
  };
}
