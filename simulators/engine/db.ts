// What a simulated network needs of a database for its own state: SQL queries and transactions. The
// process that runs the network hands it its store (simulators/host/store.ts); it holds only simulator_* tables.
export interface SimulatorDb {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  tx<T>(fn: (db: SimulatorDb) => Promise<T>): Promise<T>;
}
