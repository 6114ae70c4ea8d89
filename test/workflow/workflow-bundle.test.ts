import { readFileSync } from 'node:fs';
import { workflowBundleSize } from '../../workers/workflow-code';

/** The workflow bundle's code (without its source map) at a36ad6d, before viem was split off. */
const codeBytesAtA36ad6d = 781_581;

describe('the workflow bundle', () => {
  it('holds no viem, @noble or abitype, and its code is 150 KB below a36ad6d', () => {
    // The bundle this project's global setup built (test/harness/bundle-workflows.ts).
    const code = readFileSync(process.env.WORKFLOW_BUNDLE_PATH!, 'utf8');
    const size = workflowBundleSize(code);
    const packages = size.byPackage.map(([name]) => name);
    expect(packages.filter((name) => /^(viem|@noble\/|abitype)/.test(name))).toEqual([]);
    expect(size.codeBytes).toBeLessThanOrEqual(codeBytesAtA36ad6d - 150 * 1024);
  });

  it('is measured by package from webpack module markers, the source map apart', () => {
    const code = [
      '/***/ "./node_modules/@temporalio/workflow/lib/index.js"',
      'aaaa',
      '/***/ "./workflows/payment-intent.ts"',
      'bb',
      '/***/ "?31ff"',
      '//# sourceMappingURL=data:xyz',
    ].join('\n');
    const size = workflowBundleSize(code);
    expect(size.sourceMapBytes).toBe('//# sourceMappingURL=data:xyz'.length);
    expect(size.codeBytes).toBe(code.length - size.sourceMapBytes);
    expect(size.byPackage.map(([name]) => name)).toEqual([
      '@temporalio/workflow',
      '(own) workflows',
      '(other)',
    ]);
  });
});
