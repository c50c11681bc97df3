// k6's `k6/http` module: synchronous requests from a VU. The VU hands each request (or batch) to the
// runner's main thread, which sends it, measures it and records the http_req_* metrics (http-client.js),
// and blocks until the responses come back, so a script reads `res.status` on the next line as in k6.
import { inInitContext, vu } from "../vu-context.js";
import { durationMs } from "../durations.js";

const DEFAULT_TIMEOUT = "60s";

/** A request as the main thread sends it: method, URL, body text, headers, tags and a timeout in ms. */
function prepare(method, url, body, params = {}) {
  const headers = { ...params.headers };
  let text = body ?? null;
  if (text !== null && typeof text === "object") {
    // k6 sends an object body as a form.
    text = new URLSearchParams(text).toString();
    if (!Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) headers["Content-Type"] = "application/x-www-form-urlencoded";
  }
  const timeout = params.timeout ?? DEFAULT_TIMEOUT;
  return {
    method: String(method).toUpperCase(),
    url: String(url),
    body: text === null ? null : String(text),
    headers,
    tags: { ...params.tags },
    timeoutMs: typeof timeout === "number" ? timeout : durationMs(timeout),
  };
}

/** The value at a gjson-style path ("items", "items.0.id", "items.#" for a length), as k6's res.json(selector). */
function select(value, selector) {
  let at = value;
  for (const part of String(selector).split(".")) {
    if (at === null || typeof at !== "object") return undefined;
    at = part === "#" && Array.isArray(at) ? at.length : at[part];
  }
  return at;
}

class Response {
  #parsed;

  constructor(request, answer) {
    Object.assign(this, answer);
    this.request = { method: request.method, url: request.url, body: request.body ?? "", headers: request.headers };
  }

  json(selector) {
    this.#parsed ??= { value: JSON.parse(this.body) };
    return selector === undefined ? this.#parsed.value : select(this.#parsed.value, selector);
  }
}

function send(requests) {
  if (inInitContext()) throw new Error("http requests are made by VU code (default, setup, teardown), not in the init context");
  return vu.exchange(requests).map((answer, i) => new Response(requests[i], answer));
}

export function request(method, url, body, params) {
  return send([prepare(method, url, body, params)])[0];
}

export const get = (url, params) => request("GET", url, null, params);
export const post = (url, body, params) => request("POST", url, body, params);
export const put = (url, body, params) => request("PUT", url, body, params);
export const patch = (url, body, params) => request("PATCH", url, body, params);
export const del = (url, body, params) => request("DELETE", url, body, params);

/** Requests sent together; each is a URL (GET), [method, url, body, params] or { method, url, body, params }. */
export function batch(requests) {
  if (!Array.isArray(requests)) throw new Error("http.batch: give an array of requests");
  return send(
    requests.map((r) => {
      if (typeof r === "string") return prepare("GET", r, null);
      if (Array.isArray(r)) return prepare(...r);
      return prepare(r.method ?? "GET", r.url, r.body, r.params);
    }),
  );
}

export default { request, get, post, put, patch, del, batch };
