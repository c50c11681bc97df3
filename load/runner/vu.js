// One virtual user in a worker thread, as k6 runs each VU in a JavaScript runtime of its own: the script
// is evaluated here (its init context), then each command of the main thread runs one call of it —
// an iteration of a scenario, setup() or teardown() — and answers with what it measured.
import { register } from "node:module";
import { parentPort, receiveMessageOnPort, workerData } from "node:worker_threads";
import { emit, vu, vuTags } from "./vu-context.js";

const { id, scriptUrl, env, http, answered } = workerData;
register("./hooks.js", import.meta.url);
globalThis.__ENV = env;
globalThis.__VU = id;
globalThis.__ITER = 0;

// The main thread answers on `http` and then raises `answered`: the wait ends, and the answer is there to take.
const signal = new Int32Array(answered);
vu.exchange = (requests) => {
  http.postMessage({ requests, tags: vuTags() });
  Atomics.wait(signal, 0, 0);
  Atomics.store(signal, 0, 0);
  return receiveMessageOnPort(http).message;
};

const describe = (error) => (error instanceof Error ? (error.stack ?? error.message) : String(error));

let script;
try {
  script = await import(scriptUrl);
  parentPort.postMessage({ type: "ready" });
} catch (error) {
  parentPort.postMessage({ type: "init-error", error: describe(error) });
}

let iterations = 0;
let data;
parentPort.on("message", (command) => {
  if (command.type === "data") {
    data = command.data === undefined ? undefined : JSON.parse(command.data);
    return;
  }
  vu.samples = [];
  vu.scenario = command.scenario;
  vu.group = "";
  const started = performance.now();
  let result;
  let error;
  try {
    if (command.type === "iterate") globalThis.__ITER = iterations++;
    result = script[command.fn](command.type === "setup" ? undefined : data);
  } catch (e) {
    error = describe(e);
  }
  if (command.type === "iterate") {
    emit("iteration_duration", "trend", true, performance.now() - started);
    emit("iterations", "counter", false, 1);
  }
  // Setup's data reaches the VUs as JSON, as in k6: what survives JSON.stringify, nothing else.
  const json = command.type === "setup" && result !== undefined ? JSON.stringify(result) : undefined;
  parentPort.postMessage({ type: "done", samples: vu.samples, error, data: json });
});
