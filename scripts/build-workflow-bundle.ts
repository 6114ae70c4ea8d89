import { resolve } from 'node:path';
import { writeWorkflowBundle } from '../workers/workflow-code';

/** `npm run build:workflow`: the bundle production workers load via WORKFLOW_BUNDLE_PATH. */
const target = resolve(process.argv[2] ?? 'dist/workflow-bundle.js');
writeWorkflowBundle(target).then(
  () =>
    console.log(
      `workflow bundle written to ${target}; run workers with WORKFLOW_BUNDLE_PATH=${target}`,
    ),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
