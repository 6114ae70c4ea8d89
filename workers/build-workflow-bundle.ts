import { resolve } from 'node:path';
import { tracedBundlePath, workflowBundleSize, writeWorkflowBundles } from './workflow-code';

/** `npm run build:workflow`: the bundle production workers load via WORKFLOW_BUNDLE_PATH. */
const target = resolve(process.argv[2] ?? 'dist/workflow-bundle.js');
const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
// The traced twin is what a worker loads when OTEL_EXPORTER_OTLP_ENDPOINT is set.
writeWorkflowBundles(target).then(
  (code) => {
    const size = workflowBundleSize(code);
    console.log(
      `workflow bundle: ${kb(size.codeBytes)} of code (${size.byPackage
        .map(([name, bytes]) => `${name} ${kb(bytes)}`)
        .join(', ')}) + ${kb(size.sourceMapBytes)} of source map`,
    );
    console.log(
      `written to ${target} (and its traced twin ${tracedBundlePath(target)}); run workers with WORKFLOW_BUNDLE_PATH=${target}`,
    );
  },
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
