// The main thread's side of k6/http: sends a VU's requests with fetch, times them and records the
// http_req_* metrics with k6's tags, and gives back what k6's Response carries.

// k6's error codes for the failures a fetch can meet (https://grafana.com/docs/k6/latest/javascript-api/error-codes/).
const TIMEOUT = 1050;
const GENERIC = 1000;

/** k6 names headers canonically: content-type -> Content-Type. */
const canonical = (name) => name.replace(/(^|-)([a-z])/g, (_, dash, letter) => dash + letter.toUpperCase());

/** k6's default: a response is expected with a status of 200 to 399. */
const expected = (status) => status >= 200 && status < 400;

/** Sends one prepared request (k6/http.js) for a VU whose tags are `vuTags`; records its samples in `results`. */
export async function send(request, vuTags, results) {
  const started = performance.now();
  let answer;
  let headersAt = started;
  try {
    const res = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.timeout(request.timeoutMs),
    });
    headersAt = performance.now();
    const body = await res.text();
    const headers = {};
    res.headers.forEach((value, name) => (headers[canonical(name)] = value));
    answer = { status: res.status, status_text: `${res.status} ${res.statusText}`, headers, body, url: res.url, error: "", error_code: 0 };
  } catch (e) {
    headersAt = performance.now();
    const timedOut = e.name === "TimeoutError";
    answer = {
      status: 0,
      status_text: "",
      headers: {},
      body: null,
      url: request.url,
      error: timedOut ? "request timeout" : String(e.cause?.message ?? e.message),
      error_code: timedOut ? TIMEOUT : GENERIC,
    };
  }
  const finished = performance.now();
  // fetch does not expose the connection's phases: waiting runs from the start to the headers.
  answer.timings = {
    blocked: 0,
    connecting: 0,
    tls_handshaking: 0,
    sending: 0,
    waiting: headersAt - started,
    receiving: finished - headersAt,
    duration: finished - started,
  };
  const ok = expected(answer.status);
  const tags = {
    ...vuTags,
    name: request.url,
    ...request.tags,
    method: request.method,
    url: request.url,
    status: String(answer.status),
    expected_response: String(ok),
  };
  results.add({ metric: "http_reqs", type: "counter", isTime: false, value: 1, tags });
  results.add({ metric: "http_req_duration", type: "trend", isTime: true, value: answer.timings.duration, tags });
  results.add({ metric: "http_req_waiting", type: "trend", isTime: true, value: answer.timings.waiting, tags });
  results.add({ metric: "http_req_receiving", type: "trend", isTime: true, value: answer.timings.receiving, tags });
  results.add({ metric: "http_req_failed", type: "rate", isTime: false, value: ok ? 0 : 1, tags });
  return answer;
}
