// The service clock's total advance, kept in the settings table (see src/platform/clock/shared.ts).
import type { Db } from "../db.ts";
import type { OffsetStore } from "./shared.ts";

export const clockOffsetStore = (db: Db): OffsetStore => ({
  async read() {
    const [row] = await db.query<{ offset: number }>("select (value->>'offsetMs')::float8 as offset from settings where key = 'clock'");
    return row?.offset ?? 0;
  },
  async write(offsetMs) {
    await db.query(
      `insert into settings (key, value) values ('clock', jsonb_build_object('offsetMs', $1::float8))
       on conflict (key) do update set value = jsonb_build_object('offsetMs',
         greatest((settings.value->>'offsetMs')::float8, $1::float8))`,
      [offsetMs],
    );
  },
});
