import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where a worker process's threads were busy (ms of samples that were not idle: running, or
 * blocked inside a call, so wall time rather than CPU time), by the kind of code each stood in.
 */
export interface BusySplit {
  /** Workflow threads: the workflow code and the SDK's code inside the sandbox. */
  workflowCode: number;
  /**
   * Workflow threads: entering the sandbox itself (vm's runInContext, which the SDK calls with a
   * timeout: Node starts and joins a watchdog thread for every call).
   */
  sandboxEntry: number;
  /** Workflow threads: the SDK's promise hook, which captures a stack for every promise created. */
  promiseHook: number;
  /** Main thread: the SDK (its bridge to the core, rxjs pipelines, protobuf, payload conversion). */
  sdk: number;
  /** Main thread: the relayer's own code (activities, chain, store, throttle). */
  relayer: number;
  /** Main thread: libraries the relayer calls (viem, @noble, kysely, better-sqlite3, ioredis, …). */
  libraries: number;
  /** Any thread: V8 and Node themselves (collection, compilation, Node's internals, native). */
  runtime: number;
}

export const busyKinds = [
  'workflowCode',
  'sandboxEntry',
  'promiseHook',
  'sdk',
  'relayer',
  'libraries',
  'runtime',
] as const satisfies readonly (keyof BusySplit)[];

const emptySplit = (): BusySplit => ({
  workflowCode: 0,
  sandboxEntry: 0,
  promiseHook: 0,
  sdk: 0,
  relayer: 0,
  libraries: 0,
  runtime: 0,
});

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

type Kind = keyof BusySplit | 'idle';

const sdkCode = /\/node_modules\/(@temporalio|rxjs|protobufjs|@grpc|long)\//;
const runtimeFrames = new Set(['(garbage collector)', '(program)', '(root)']);

function ownKind(frame: ProfileNode['callFrame'], workflowThread: boolean): Kind {
  if (frame.functionName === '(idle)') return 'idle';
  if (runtimeFrames.has(frame.functionName)) return 'runtime';
  if (workflowThread) {
    if (frame.functionName === 'runInContext' && frame.url === '') return 'sandboxEntry';
    return 'workflowCode';
  }
  if (sdkCode.test(frame.url)) return 'sdk';
  if (frame.url.includes('/node_modules/')) return 'libraries';
  if (frame.url.startsWith('file://') || frame.url.startsWith('/')) return 'relayer';
  return 'runtime';
}

/** Each node's kind: its own frame's, except that all beneath the SDK's promise hook is the hook. */
function kindsOf(profile: CpuProfile, workflowThread: boolean): Map<number, Kind> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const kinds = new Map<number, Kind>();
  const visit = (id: number, inHook: boolean) => {
    const node = byId.get(id)!;
    const hook =
      inHook ||
      (workflowThread &&
        node.callFrame.functionName === 'init' &&
        node.callFrame.url.endsWith('/workflow/vm-shared.js'));
    const own = ownKind(node.callFrame, workflowThread);
    kinds.set(id, hook && own !== 'idle' ? 'promiseHook' : own);
    for (const child of node.children ?? []) visit(child, hook);
  };
  visit(profile.nodes[0]!.id, false);
  return kinds;
}

/**
 * Sums the samples of every profile Node's --cpu-prof wrote to `dir` (one per thread) that fall
 * within [fromUs, toUs] of the monotonic clock (process.hrtime's, which the profiles' timestamps
 * share). Native threads (the SDK's core in Rust, libuv's pool) have no samples: their share is
 * in the process's CPU time only.
 */
export function busySplitOfProfiles(dir: string, fromUs: number, toUs: number): BusySplit {
  const split = emptySplit();
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.cpuprofile'))) {
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
    // The main thread's id is 0 (CPU.<date>.<time>.<pid>.<thread id>.<n>.cpuprofile); other
    // threads are the SDK's workflow threads, or a loader's (tsx) that is idle once started.
    const workflowThread =
      file.split('.')[4] !== '0' &&
      profile.nodes.some((node) => node.callFrame.url.endsWith('/workflow/vm-shared.js'));
    const kinds = kindsOf(profile, workflowThread);
    let at = profile.startTime;
    profile.samples.forEach((nodeId, i) => {
      const delta = profile.timeDeltas[i] ?? 0;
      at += delta;
      const kind = kinds.get(nodeId);
      if (at < fromUs || at > toUs || kind === undefined || kind === 'idle') return;
      split[kind] += delta / 1000;
    });
  }
  return split;
}
