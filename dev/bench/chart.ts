import { Resvg } from '@resvg/resvg-js';
import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

export interface ChartPoint {
  /** The grid cell, e.g. "N 100 · Q 20/s · 1 proc". */
  cell: string;
  arm: string;
  intentsPerSecond: number;
  /** Achieved sends/s ÷ quota; none where the quota is unlimited. */
  efficiency?: number;
}

/**
 * Throughput of each arm per grid cell (grouped bars) over quota efficiency, as a PNG: Vega-Lite
 * draws the SVG, resvg rasterizes it (neither needs a browser or a native canvas).
 */
export async function renderChart(points: ChartPoint[]): Promise<Buffer> {
  const bars = (field: string, title: string, data: ChartPoint[]) => ({
    title,
    width: Math.max(360, data.length * 14),
    height: 220,
    data: { values: data },
    mark: { type: 'bar' as const },
    encoding: {
      x: {
        field: 'cell',
        type: 'nominal' as const,
        title: null,
        axis: { labelAngle: -40, labelLimit: 300 },
      },
      xOffset: { field: 'arm', type: 'nominal' as const },
      y: { field, type: 'quantitative' as const, title },
      color: {
        field: 'arm',
        type: 'nominal' as const,
        title: 'arm',
        legend: { labelLimit: 400 },
      },
    },
  });
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    background: 'white',
    vconcat: [
      bars('intentsPerSecond', 'intents/s (steady window)', points),
      bars(
        'efficiency',
        'achieved sends/s ÷ quota',
        points.filter((p) => p.efficiency !== undefined),
      ),
    ],
  };
  return renderSpec(spec);
}

/** A Vega-Lite chart as a PNG, drawn without a browser. */
export async function renderSpec(spec: TopLevelSpec): Promise<Buffer> {
  const view = new View(parse(compile(spec).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  return new Resvg(svg, { font: { loadSystemFonts: true } }).render().asPng();
}
