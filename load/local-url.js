// The address guard of the k6 scenarios: they send requests (and point webhooks) only at this machine,
// so a load test can never be aimed at a shared deployment by a stray environment variable.
// Plain ECMAScript with no imports, so k6 and the vitest suite load the same module.

const LOCAL_URL = /^https?:\/\/(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])(:\d{1,5})?(\/[^\s?#]*)?$/i;

/** `value` without trailing slashes when it is an http(s) URL on this machine; otherwise throws naming `name`. */
export function localUrl(name, value) {
  if (typeof value !== "string" || !LOCAL_URL.test(value)) {
    throw new Error(`${name}: must be an http(s) URL on localhost, 127.0.0.1 or [::1] (got ${JSON.stringify(value)})`);
  }
  return value.replace(/\/+$/, "");
}
