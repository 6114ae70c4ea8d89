import { bundleWorkflowCode, DefaultLogger, type WorkerOptions } from '@temporalio/worker';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError } from './config/load';

/** Resolved only when workflows are bundled from source: a compiled process has no sources. */
const workflowsPath = (): string => require.resolve('../workflows');

/**
 * The workflow interceptors of traces (workflow and activity spans, the context carried to each
 * step): in a bundle only when tracing is on, so a process without it evaluates none of it.
 */
const tracingWorkflowModules = (): string[] => [
  require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'),
];

/** Where the traced twin of a prebuilt bundle is (`npm run build:workflow` writes both). */
export const tracedBundlePath = (bundlePath: string): string =>
  bundlePath.replace(/(\.js)?$/, '.traced.js');

/** The code a worker runs, and the digest of its untraced form: the same build traced or not. */
export interface WorkflowCode {
  workflowBundle: NonNullable<WorkerOptions['workflowBundle']>;
  digest: string;
}

/**
 * Workers run the prebuilt bundle named by WORKFLOW_BUNDLE_PATH (`npm run build:workflow`; what
 * production images do), or its traced twin when tracing is on, and otherwise bundle workflows/
 * from source at start. Only an explicit path is trusted: a leftover bundle could silently run
 * older workflow code.
 */
export async function workflowCode(
  traced: boolean,
  bundlePath = process.env.WORKFLOW_BUNDLE_PATH,
): Promise<WorkflowCode> {
  if (bundlePath) {
    const codePath = traced ? tracedBundlePath(bundlePath) : bundlePath;
    for (const path of new Set([bundlePath, codePath])) {
      if (existsSync(path)) continue;
      throw new ConfigError({
        problems: [
          `WORKFLOW_BUNDLE_PATH: ${path} is missing${path === codePath && traced ? ' (tracing is on: OTEL_EXPORTER_OTLP_ENDPOINT is set)' : ''}; npm run build:workflow writes it`,
        ],
      });
    }
    return { workflowBundle: { codePath }, digest: digestOf(readFileSync(bundlePath, 'utf8')) };
  }
  const code = await bundledCode(workflowsPath(), false);
  return {
    workflowBundle: { code: traced ? await bundledCode(workflowsPath(), true) : code },
    digest: digestOf(code),
  };
}

const digestOf = (code: string): string =>
  createHash('sha256').update(code).digest('hex').slice(0, 12);

/**
 * Our workflow code compiled for the Node it runs on instead of the SDK's default ES2017: object
 * spread, optional chaining and `??` stay native rather than becoming helpers copied into every
 * module that uses them (less code for every workflow context to evaluate; docs/benchmark.md).
 */
function compiledForNode(config: WebpackConfiguration): WebpackConfiguration {
  for (const rule of config.module?.rules ?? []) {
    const use = rule && typeof rule === 'object' ? rule.use : undefined;
    const options = use && typeof use === 'object' && !Array.isArray(use) ? use.options : undefined;
    const swc = options && typeof options === 'object' ? (options as SwcOptions) : undefined;
    if (swc?.jsc) {
      swc.jsc.target = 'es2022';
      // Our comments are for readers of the source (the source map keeps it), not for every
      // workflow context to parse: printed without them, names and layout kept.
      swc.jsc.minify = { compress: false, mangle: false, format: { comments: false } };
      swc.minify = true;
    }
  }
  return config;
}

type WebpackConfiguration = Parameters<
  NonNullable<NonNullable<WorkerOptions['bundlerOptions']>['webpackConfigHook']>
>[0];
interface SwcOptions {
  jsc?: {
    target?: string;
    minify?: { compress: boolean; mangle: boolean; format: { comments: boolean } };
  };
  minify?: boolean;
}

/** Writes the bundle to `path` (with the tracing interceptors when `traced`); returns its code. */
export async function writeWorkflowBundle(
  path: string,
  { from = workflowsPath(), traced = false }: { from?: string; traced?: boolean } = {},
): Promise<string> {
  const code = await bundledCode(from, traced);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, code);
  return code;
}

/** In every bundle: a bulk workflow's activities are never dispatched eagerly. */
const eagerDispatchModule = (): string => require.resolve('../workflows/eager-dispatch');

async function bundledCode(from: string, traced: boolean): Promise<string> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: from,
    workflowInterceptorModules: [
      eagerDispatchModule(),
      ...(traced ? tracingWorkflowModules() : []),
    ],
    logger: new DefaultLogger('WARN'),
    webpackConfigHook: compiledForNode,
  });
  return code;
}

/** The bundle and its traced twin, as a deployment needs them (`npm run build:workflow`). */
export async function writeWorkflowBundles(path: string, from?: string): Promise<string> {
  const [code] = await Promise.all([
    writeWorkflowBundle(path, { ...(from && { from }) }),
    writeWorkflowBundle(tracedBundlePath(path), { ...(from && { from }), traced: true }),
  ]);
  return code;
}

export interface BundleSize {
  /** The bundle without its inline source map: what every workflow context evaluates. */
  codeBytes: number;
  sourceMapBytes: number;
  /** Code bytes by npm package (`(own) workflows`, `(own) domain` for ours), largest first. */
  byPackage: [name: string, bytes: number][];
}

const sourceMapMark = '//# sourceMappingURL=';

/** What a bundle is made of, from webpack's module markers (`/***\/ "./path"` lines). */
export function workflowBundleSize(code: string): BundleSize {
  const mapAt = code.lastIndexOf(sourceMapMark);
  const body = mapAt === -1 ? code : code.slice(0, mapAt);
  const modules = [...body.matchAll(/^\/\*\*\*\/ "([^"]+)"$/gm)];
  const byPackage = new Map<string, number>();
  modules.forEach((module, i) => {
    const end = modules[i + 1]?.index ?? body.length;
    const parts = module[1]!.split('/');
    const at = parts.lastIndexOf('node_modules');
    // webpack's stand-ins for modules left out (`?31ff`) count as `(other)`.
    const name =
      at === -1
        ? parts.length > 1
          ? `(own) ${parts[1]}`
          : '(other)'
        : parts[at + 1]!.startsWith('@')
          ? `${parts[at + 1]}/${parts[at + 2]}`
          : parts[at + 1]!;
    byPackage.set(name, (byPackage.get(name) ?? 0) + end - module.index);
  });
  return {
    codeBytes: body.length,
    sourceMapBytes: code.length - body.length,
    byPackage: [...byPackage].sort((a, b) => b[1] - a[1]),
  };
}
