// The main thread's handle on a VU (a worker running vu.js): starts it, serves its HTTP requests, runs one
// call at a time on it and takes in what it measured.
import { MessageChannel, Worker } from "node:worker_threads";
import { send } from "./http-client.js";

export class ScriptError extends Error {}

export class VU {
  /** Starts VU `id` on the script; `ready` settles once the script's init context has run in it. */
  constructor(id, { scriptUrl, env, results }) {
    this.id = id;
    this.results = results;
    this.pending = undefined;
    const answered = new SharedArrayBuffer(4);
    const signal = new Int32Array(answered);
    const { port1, port2 } = new MessageChannel();
    this.http = port1;
    port1.on("message", async ({ requests, tags }) => {
      const answers = await Promise.all(requests.map((request) => send(request, tags, results)));
      port1.postMessage(answers);
      Atomics.store(signal, 0, 1);
      Atomics.notify(signal, 0);
    });
    this.worker = new Worker(new URL("./vu.js", import.meta.url), { workerData: { id, scriptUrl, env, http: port2, answered }, transferList: [port2] });
    this.ready = new Promise((resolve, reject) => {
      this.worker.once("message", (m) => (m.type === "ready" ? resolve(this) : reject(new ScriptError(m.error))));
      this.worker.once("error", (e) => reject(new ScriptError(e.stack ?? String(e))));
    });
    this.worker.on("message", (m) => {
      if (m.type !== "done") return;
      for (const sample of m.samples) results.add(sample);
      const settle = this.pending;
      this.pending = undefined;
      settle?.(m);
    });
    this.worker.on("exit", () => this.pending?.({ interrupted: true }));
  }

  /** Runs `fn` of the script (an iteration of `scenario`, or setup/teardown without one); resolves with { error, data, interrupted }. */
  call(type, fn, scenario) {
    if (this.pending) throw new Error(`VU ${this.id} is busy`);
    return new Promise((resolve) => {
      this.pending = resolve;
      this.worker.postMessage({ type, fn, scenario });
    });
  }

  /** Setup's data, as JSON, for every later call. */
  give(data) {
    this.worker.postMessage({ type: "data", data });
  }

  get busy() {
    return this.pending !== undefined;
  }

  /** Stops the worker, interrupting its call if it has one. */
  async stop() {
    this.http.close();
    await this.worker.terminate();
  }
}
