import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { heapGrowth } from '../../dev/cluster/heap-growth';
import { scratchDir } from '../harness/scratch-dir';

interface FakeNode {
  type: 'synthetic' | 'object' | 'string';
  name: string;
  id: number;
  size: number;
  edges?: { type: 'property' | 'element' | 'weak'; name: string | number; to: number }[];
}

const nodeTypes = ['hidden', 'array', 'string', 'object', 'code', 'closure', 'synthetic'];
const edgeTypes = ['context', 'element', 'property', 'internal', 'hidden', 'shortcut', 'weak'];

/** A V8 heap snapshot file of `nodes` (edges point at a node's index in the list). */
function snapshotFile(dir: string, file: string, nodes: FakeNode[]): string {
  const strings: string[] = [];
  const stringIndex = (text: string) => {
    if (!strings.includes(text)) strings.push(text);
    return strings.indexOf(text);
  };
  const fields = ['type', 'name', 'id', 'self_size', 'edge_count', 'trace_node_id', 'detachedness'];
  const snapshot = {
    snapshot: {
      meta: {
        node_fields: fields,
        node_types: [nodeTypes, 'string', 'number', 'number', 'number', 'number', 'number'],
        edge_fields: ['type', 'name_or_index', 'to_node'],
        edge_types: [edgeTypes, 'string_or_number', 'node'],
      },
    },
    nodes: nodes.flatMap((node) => [
      nodeTypes.indexOf(node.type),
      stringIndex(node.name),
      node.id,
      node.size,
      node.edges?.length ?? 0,
      0,
      0,
    ]),
    edges: nodes.flatMap((node) =>
      (node.edges ?? []).flatMap((edge) => [
        edgeTypes.indexOf(edge.type),
        edge.type === 'element' ? Number(edge.name) : stringIndex(String(edge.name)),
        edge.to * fields.length,
      ]),
    ),
    strings,
  };
  const path = join(dir, file);
  writeFileSync(path, JSON.stringify(snapshot));
  return path;
}

describe('heap growth between two snapshots of one process', () => {
  it('sums the objects only the later one holds by constructor, with what keeps one alive', () => {
    const dir = scratchDir('heap-growth');
    const root = (edges: FakeNode['edges']): FakeNode => ({
      type: 'synthetic',
      name: '(root)',
      id: 1,
      size: 0,
      edges,
    });
    const probe: FakeNode = { type: 'object', name: 'CodeProbe', id: 3, size: 40 };
    const before = snapshotFile(dir, 'before.heapsnapshot', [
      root([{ type: 'property', name: 'probe', to: 1 }]),
      { ...probe, edges: [{ type: 'property', name: 'known', to: 2 }] },
      { type: 'object', name: 'Map', id: 5, size: 100 },
    ]);
    const after = snapshotFile(dir, 'after.heapsnapshot', [
      root([
        { type: 'property', name: 'probe', to: 1 },
        { type: 'weak', name: 'cache', to: 3 },
      ]),
      { ...probe, edges: [{ type: 'property', name: 'known', to: 2 }] },
      {
        type: 'object',
        name: 'Map',
        id: 5,
        size: 100,
        edges: [
          { type: 'element', name: 0, to: 3 },
          { type: 'element', name: 1, to: 4 },
        ],
      },
      { type: 'object', name: 'Answer', id: 7, size: 64 },
      { type: 'object', name: 'Answer', id: 9, size: 64 },
      { type: 'string', name: 'pi_1', id: 11, size: 20 },
    ]);

    const growth = heapGrowth(before, after);
    expect(growth).toMatchObject({ beforeBytes: 140, afterBytes: 288 });
    expect(growth.grown).toEqual([
      // The weak edge from the root is not what keeps it: the Map's element is.
      { group: 'Answer', newObjects: 2, newBytes: 128, retainedBy: ['Map.[0]', 'CodeProbe.known'] },
      { group: '(string)', newObjects: 1, newBytes: 20, retainedBy: [] },
    ]);
  });
});
