// Module resolution hooks (module.register) that give a k6 script k6's own modules: `k6`, `k6/http` and
// `k6/metrics` resolve to their implementations in ./k6/, so the scripts in load/ run unchanged.
const PROVIDED = { k6: "k6.js", "k6/http": "http.js", "k6/metrics": "metrics.js" };

export async function resolve(specifier, context, nextResolve) {
  if (Object.hasOwn(PROVIDED, specifier)) return { url: new URL(`./k6/${PROVIDED[specifier]}`, import.meta.url).href, shortCircuit: true };
  if (specifier.startsWith("k6/")) {
    throw new Error(`${specifier}: not provided by load/runner (it gives ${Object.keys(PROVIDED).join(", ")}); run this script with k6 itself`);
  }
  return nextResolve(specifier, context);
}
