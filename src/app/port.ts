// Whether PORT is free, asked before anything else opens: a taken port is one line naming PORT at once,
// not a stack trace after DATA_DIR's database has been initialised.
import { createServer } from "node:net";

export class PortInUseError extends Error {
  override name = "PortInUseError";
  constructor(readonly port: number) {
    super(`PORT ${port} is already in use by another process: stop it, or set PORT to a free port (PORT=3001 npm start).`);
  }
}

/** The error to stop with when listening on `port` failed with `err`. */
export const listenError = (port: number, err: unknown) =>
  (err as NodeJS.ErrnoException | undefined)?.code === "EADDRINUSE" ? new PortInUseError(port) : err;

/** Resolves when `port` can be listened on (port 0 always can); rejects with PortInUseError when it is taken. */
export function checkPortFree(port: number, host = "0.0.0.0"): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", (err) => reject(listenError(port, err)));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}
