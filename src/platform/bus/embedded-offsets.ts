// The embedded log's committed offsets: per consumer group and partition, the next offset to consume.
// With a folder they persist in an append-only file, one JSON line a commit, rewritten at start-up with
// each group's latest offset per partition only.
import { closeSync, existsSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from "node:fs";

interface OffsetLine {
  g: string;
  t: string;
  p: number;
  o: number;
}

const tpKey = (topic: string, partition: number) => `${topic}\u0000${partition}`;

export class CommittedOffsets {
  /** group -> topic/partition -> next offset to consume. */
  private readonly byGroup = new Map<string, Map<string, number>>();
  private fd: number | undefined;

  /** Reads the file back (a line cut short by a crash is skipped: the commit before it stands), then appends to it. */
  open(path: string): void {
    if (existsSync(path)) {
      for (const line of readFileSync(path, "utf8").split("\n")) {
        const entry = parsed(line);
        if (entry) this.ofGroup(entry.g).set(tpKey(entry.t, entry.p), entry.o);
      }
    }
    const latest = [...this.byGroup].flatMap(([g, offsets]) =>
      [...offsets].map(([tp, o]) => {
        const [t, p] = tp.split("\u0000");
        return JSON.stringify({ g, t, p: Number(p), o }) + "\n";
      }),
    );
    writeFileSync(path + ".tmp", latest.join(""));
    renameSync(path + ".tmp", path);
    this.fd = openSync(path, "a");
  }

  get(group: string, topic: string, partition: number): number | undefined {
    return this.byGroup.get(group)?.get(tpKey(topic, partition));
  }

  /** Moves the group's offset on the partition forward to `offset`; false when it is there already. */
  commit(group: string, topic: string, partition: number, offset: number): boolean {
    const offsets = this.ofGroup(group);
    const key = tpKey(topic, partition);
    if ((offsets.get(key) ?? -1) >= offset) return false;
    offsets.set(key, offset);
    if (this.fd !== undefined) writeSync(this.fd, JSON.stringify({ g: group, t: topic, p: partition, o: offset } satisfies OffsetLine) + "\n");
    return true;
  }

  /**
   * The lowest offset committed on the partition by the groups `counts` admits. A counted group that has
   * committed none there yet makes it `unstarted`; without `unstarted`, such a group is passed over.
   */
  lowest(topic: string, partition: number, counts: (groupId: string) => boolean, unstarted?: number): number | undefined {
    const key = tpKey(topic, partition);
    let low: number | undefined;
    for (const [groupId, offsets] of this.byGroup) {
      if (!counts(groupId)) continue;
      const o = offsets.get(key);
      if (o !== undefined) low = low === undefined ? o : Math.min(low, o);
      else if (unstarted !== undefined) return unstarted;
    }
    return low;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private ofGroup(group: string): Map<string, number> {
    let offsets = this.byGroup.get(group);
    if (!offsets) this.byGroup.set(group, (offsets = new Map()));
    return offsets;
  }
}

function parsed(line: string): OffsetLine | undefined {
  if (!line) return undefined;
  try {
    return JSON.parse(line) as OffsetLine;
  } catch {
    return undefined;
  }
}
