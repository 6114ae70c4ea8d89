import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What grew between two V8 heap snapshots of one process (`node --heapsnapshot-signal`): the
 * objects of the later one that the earlier one did not hold (V8 keeps an object's id across
 * snapshots of a process), summed by constructor, each with the path that keeps one of them alive.
 * Written by hand: DevTools' comparison view does this, but no library does it from a script.
 */

interface Snapshot {
  types: string[];
  edgeTypes: string[];
  strings: string[];
  nodes: Uint32Array | number[];
  edges: Uint32Array | number[];
  nodeFieldCount: number;
  edgeFieldCount: number;
  field: Record<'type' | 'name' | 'id' | 'selfSize' | 'edgeCount', number>;
  edgeField: Record<'type' | 'nameOrIndex' | 'toNode', number>;
}

interface RawSnapshot {
  snapshot: {
    meta: {
      node_fields: string[];
      node_types: [string[], ...unknown[]];
      edge_fields: string[];
      edge_types: [string[], ...unknown[]];
    };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

function readSnapshot(path: string): Snapshot {
  const raw = JSON.parse(readFileSync(path, 'utf8')) as RawSnapshot;
  const { meta } = raw.snapshot;
  const at = (fields: string[], name: string) => {
    const index = fields.indexOf(name);
    if (index < 0) throw new Error(`${path}: not a V8 heap snapshot (no ${name} field)`);
    return index;
  };
  return {
    types: meta.node_types[0],
    edgeTypes: meta.edge_types[0],
    strings: raw.strings,
    nodes: raw.nodes,
    edges: raw.edges,
    nodeFieldCount: meta.node_fields.length,
    edgeFieldCount: meta.edge_fields.length,
    field: {
      type: at(meta.node_fields, 'type'),
      name: at(meta.node_fields, 'name'),
      id: at(meta.node_fields, 'id'),
      selfSize: at(meta.node_fields, 'self_size'),
      edgeCount: at(meta.node_fields, 'edge_count'),
    },
    edgeField: {
      type: at(meta.edge_fields, 'type'),
      nameOrIndex: at(meta.edge_fields, 'name_or_index'),
      toNode: at(meta.edge_fields, 'to_node'),
    },
  };
}

/** A node's group: its constructor for objects, its kind otherwise ("(closure)", "(string)"). */
function groupOf(s: Snapshot, node: number): string {
  const type = s.types[s.nodes[node + s.field.type]!]!;
  const name = s.strings[s.nodes[node + s.field.name]!]!;
  if (type === 'object' || type === 'native') return name;
  if (type === 'closure') return `(closure) ${name || 'anonymous'}`;
  return `(${type})`;
}

export interface GrownGroup {
  group: string;
  newObjects: number;
  newBytes: number;
  /** One new object's retainers, nearest first, up to a root or 12 steps. */
  retainedBy: string[];
}

export interface HeapGrowth {
  beforeBytes: number;
  afterBytes: number;
  /** The groups whose new objects hold the most bytes, largest first. */
  grown: GrownGroup[];
}

/** The groups that grew most from `beforePath` to `afterPath` (two snapshots of one process). */
export function heapGrowth(beforePath: string, afterPath: string, top = 10): HeapGrowth {
  const before = readSnapshot(beforePath);
  const beforeIds = new Set<number>();
  let beforeBytes = 0;
  for (let node = 0; node < before.nodes.length; node += before.nodeFieldCount) {
    beforeIds.add(before.nodes[node + before.field.id]!);
    beforeBytes += before.nodes[node + before.field.selfSize]!;
  }
  const s = readSnapshot(afterPath);
  const nodeCount = s.nodes.length / s.nodeFieldCount;
  // Each node's first retainer over a strong edge, for the paths.
  const retainer = new Int32Array(nodeCount).fill(-1);
  const retainerEdge = new Int32Array(nodeCount).fill(-1);
  let afterBytes = 0;
  const groups = new Map<string, { newObjects: number; newBytes: number; sample: number }>();
  for (let node = 0, edge = 0; node < s.nodes.length; node += s.nodeFieldCount) {
    const edgeCount = s.nodes[node + s.field.edgeCount]!;
    for (let k = 0; k < edgeCount; k++, edge += s.edgeFieldCount) {
      if (s.edgeTypes[s.edges[edge + s.edgeField.type]!] === 'weak') continue;
      const to = s.edges[edge + s.edgeField.toNode]! / s.nodeFieldCount;
      if (retainer[to] === -1) {
        retainer[to] = node / s.nodeFieldCount;
        retainerEdge[to] = edge;
      }
    }
    const selfSize = s.nodes[node + s.field.selfSize]!;
    afterBytes += selfSize;
    if (beforeIds.has(s.nodes[node + s.field.id]!)) continue;
    const group = groupOf(s, node);
    const entry = groups.get(group) ?? { newObjects: 0, newBytes: 0, sample: node };
    entry.newObjects += 1;
    entry.newBytes += selfSize;
    groups.set(group, entry);
  }
  const edgeName = (edge: number) => {
    const type = s.edgeTypes[s.edges[edge + s.edgeField.type]!];
    const nameOrIndex = s.edges[edge + s.edgeField.nameOrIndex]!;
    return type === 'element' || type === 'hidden' ? `[${nameOrIndex}]` : s.strings[nameOrIndex];
  };
  const pathOf = (node: number): string[] => {
    const path: string[] = [];
    const seen = new Set<number>();
    for (let at = node / s.nodeFieldCount; path.length < 12;) {
      const parent = retainer[at]!;
      if (parent < 0 || parent === 0 || seen.has(parent)) break;
      seen.add(parent);
      path.push(`${groupOf(s, parent * s.nodeFieldCount)}.${edgeName(retainerEdge[at]!)}`);
      at = parent;
    }
    return path;
  };
  const grown = [...groups.entries()]
    .sort((a, b) => b[1].newBytes - a[1].newBytes)
    .slice(0, top)
    .map(([group, { newObjects, newBytes, sample }]) => ({
      group,
      newObjects,
      newBytes,
      retainedBy: pathOf(sample),
    }));
  return { beforeBytes, afterBytes, grown };
}

/** A heap snapshot the soak asked of a worker. */
export interface HeapSnapshotTaken {
  minute: number;
  name: string;
  pid: number;
}

/** A worker's growth from its first snapshot to its last. */
export interface WorkerHeapGrowth extends HeapGrowth {
  name: string;
  pid: number;
  fromMinute: number;
  toMinute: number;
}

/** Node's file names: Heap.<date>.<time>.<pid>.<thread>.<sequence>.heapsnapshot. */
function snapshotFiles(dir: string, pid: number): string[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.heapsnapshot') && file.split('.')[3] === String(pid))
    .sort((a, b) => Number(a.split('.')[5]) - Number(b.split('.')[5]))
    .map((file) => join(dir, file));
}

/**
 * What grew in each worker that wrote two snapshots or more, once Node has finished writing them
 * (a file's size the same two seconds apart).
 */
export async function growthOfWorkers(
  dir: string,
  taken: HeapSnapshotTaken[],
): Promise<WorkerHeapGrowth[]> {
  const byPid = new Map<number, HeapSnapshotTaken[]>();
  for (const snapshot of taken)
    byPid.set(snapshot.pid, [...(byPid.get(snapshot.pid) ?? []), snapshot]);
  const sizes = () =>
    readdirSync(dir)
      .map((file) => statSync(join(dir, file)).size)
      .join();
  // A worker that died before writing one is given up on after five minutes.
  for (let before = sizes(), deadline = Date.now() + 5 * 60_000; Date.now() < deadline;) {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const now = sizes();
    const written = [...byPid].every(
      ([pid, asked]) => snapshotFiles(dir, pid).length >= asked.length,
    );
    if (now === before && written) break;
    before = now;
  }
  const growth: WorkerHeapGrowth[] = [];
  for (const [pid, asked] of byPid) {
    const files = snapshotFiles(dir, pid);
    if (asked.length < 2 || files.length < 2) continue;
    growth.push({
      name: asked[0]!.name,
      pid,
      fromMinute: asked[0]!.minute,
      toMinute: asked.at(-1)!.minute,
      ...heapGrowth(files[0]!, files.at(-1)!),
    });
  }
  return growth;
}
