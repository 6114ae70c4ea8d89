/**
 * vega-lite publishes its types through `exports` only, which this CommonJS project's module
 * resolution (node10) cannot see: the one function the chart uses, declared here.
 */
declare module 'vega-lite' {
  import type { Spec } from 'vega';
  export function compile(spec: object): { spec: Spec };
}
