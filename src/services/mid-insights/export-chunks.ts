// An export's stored file, read back a chunk at a time: what GET …/file streams and what its e-mail attaches.
import type { Db } from "../../platform/db.ts";

/** The export's file as its stored chunks, read one at a time: what is downloaded and what is attached. */
export async function* exportChunks(db: Pick<Db, "query">, exportId: string): AsyncGenerator<string> {
  for (let seq = 0; ; seq++) {
    const [chunk] = await db.query<{ content: string }>("select content from mid_insight_export_chunks where export_id = $1 and seq = $2", [exportId, seq]);
    if (!chunk) return;
    yield chunk.content;
  }
}
