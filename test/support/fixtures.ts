// A small graph of resources for one account and environment: every path parameter an API route
// takes maps to a record of that graph, so route-wide rules (auth, 404s) can be generated once.
import { expectStatus, type Client } from "./harness.ts";

export type Graph = Record<string, string>;

/** Creates one of each resource and returns the id for each path parameter name. */
export async function seedGraph(client: Client): Promise<Graph> {
  const program = await expectStatus<{ id: string }>(await client.post("/v1/programs", { name: "Graph program" }), 201);
  return { programId: program.id };
}
