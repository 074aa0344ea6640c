/**
 * The report's charts: ECharts options built from the report data (pure), rendered to SVG
 * strings on the server (ECharts' SSR renderer), so the page needs no script to show them.
 */
import * as echarts from 'echarts';
import type { EChartsOption } from 'echarts';
import type { DailyPoint, JobOutcomes, TopPages, WeekPoint } from './report-data.js';

export const COLORS = { human: '#2563eb', ai: '#f97316', total: '#334155', views: '#16a34a', missing: '#cbd5e1' } as const;

const WIDTH = 760;
const HEIGHT = 320;

const base: EChartsOption = {
  animation: false,
  textStyle: { fontFamily: 'system-ui, sans-serif' },
  grid: { left: 64, right: 24, top: 40, bottom: 48 },
  legend: { top: 4 },
};

/** The axis labels: month and day, or the whole date when the days span more than one year. */
function days(daily: readonly DailyPoint[]): string[] {
  const oneYear = daily.length === 0 || daily[0]!.day.slice(0, 4) === daily.at(-1)!.day.slice(0, 4);
  return daily.map((d) => (oneYear ? d.day.slice(5) : d.day));
}

export function visitorsOption(daily: readonly DailyPoint[]): EChartsOption {
  return {
    ...base,
    xAxis: { type: 'category', data: days(daily) },
    yAxis: { type: 'value', name: 'unique visitors' },
    series: [
      { name: 'human', type: 'line', data: daily.map((d) => d.visitorsHuman), color: COLORS.human, showSymbol: false },
      { name: 'AI', type: 'line', data: daily.map((d) => d.visitorsAi), color: COLORS.ai, showSymbol: false },
      { name: 'total (deduplicated)', type: 'line', data: daily.map((d) => d.visitorsTotal), color: COLORS.total, showSymbol: false, lineStyle: { type: 'dashed' } },
    ],
  };
}

export function aiShareOption(daily: readonly DailyPoint[]): EChartsOption {
  return {
    ...base,
    xAxis: { type: 'category', data: days(daily) },
    yAxis: { type: 'value', name: 'AI share of visitors', axisLabel: { formatter: '{value}%' } },
    series: [
      {
        name: 'AI share',
        type: 'line',
        color: COLORS.ai,
        areaStyle: { opacity: 0.15 },
        data: daily.map((d) => (d.aiShare === null ? null : Math.round(d.aiShare * 1000) / 10)),
      },
    ],
  };
}

export function topPagesOption(top: TopPages): EChartsOption {
  const pages = [...top.pages].reverse(); // the largest at the top of a horizontal bar chart
  return {
    ...base,
    grid: { left: 200, right: 24, top: 40, bottom: 44 },
    xAxis: { type: 'value', name: 'unique visitors', nameLocation: 'middle', nameGap: 24 },
    yAxis: { type: 'category', data: pages.map((p) => (p.path.length > 30 ? `${p.path.slice(0, 29)}…` : p.path)) },
    series: [
      { name: 'human', type: 'bar', data: pages.map((p) => p.human), color: COLORS.human },
      { name: 'AI', type: 'bar', data: pages.map((p) => p.ai), color: COLORS.ai },
    ],
  };
}

export function viewsVsVisitorsOption(daily: readonly DailyPoint[]): EChartsOption {
  return {
    ...base,
    xAxis: { type: 'category', data: days(daily) },
    yAxis: { type: 'value', name: 'per day' },
    series: [
      { name: 'page views', type: 'line', data: daily.map((d) => d.viewsTotal), color: COLORS.views, showSymbol: false },
      { name: 'unique visitors', type: 'line', data: daily.map((d) => d.visitorsTotal), color: COLORS.total, showSymbol: false },
    ],
  };
}

export function weeksOption(weeks: readonly WeekPoint[]): EChartsOption {
  return {
    ...base,
    xAxis: { type: 'category', data: weeks.map((w) => w.weekStart.slice(5)) },
    yAxis: { type: 'value', name: 'unique visitors per week' },
    series: [
      {
        name: 'weekly unique visitors',
        type: 'bar',
        color: COLORS.total,
        // A missing week is a visible gap with a label, never a made-up value.
        data: weeks.map((w) =>
          w.visitorsTotal === null
            ? { value: 0, itemStyle: { color: COLORS.missing }, label: { show: true, position: 'insideBottom', formatter: 'missing', color: '#64748b' } }
            : w.complete === false
              ? { value: w.visitorsTotal, itemStyle: { color: COLORS.total, opacity: 0.35 }, label: { show: true, position: 'top', formatter: 'partial', color: '#64748b' } }
              : { value: w.visitorsTotal },
        ),
      },
    ],
  };
}

export function jobsOption(jobs: JobOutcomes): EChartsOption {
  return {
    ...base,
    xAxis: { type: 'category', data: jobs.byStatus.map((s) => s.status) },
    yAxis: { type: 'value', name: 'jobs', minInterval: 1 },
    series: [
      { name: 'jobs', type: 'bar', data: jobs.byStatus.map((s) => s.jobs), color: COLORS.total },
      { name: 'with a pull request', type: 'bar', data: jobs.byStatus.map((s) => s.withPr), color: COLORS.views },
    ],
  };
}

/** Renders an option to a standalone SVG string. */
export function renderSvg(option: EChartsOption, size: { width?: number; height?: number } = {}): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: size.width ?? WIDTH, height: size.height ?? HEIGHT });
  try {
    chart.setOption(option);
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}

/**
 * Pure: the ids and class names ECharts gives a chart's SVG elements (`zr<n>-c0`,
 * `zr<n>-cls-<m>`, where n counts the charts the process has rendered and m the styles it has
 * made) numbered from 0 by their first appearance in `html`. Each chart of a page keeps names
 * of its own (inline SVGs share the page's ids and styles), and a page made again in the same
 * process (a library caller's) is the same text.
 */
export function renumberChartIds(html: string): string {
  const charts = new Map<string, number>();
  const styles = new Map<string, number>();
  const next = (map: Map<string, number>, key: string): number => {
    let k = map.get(key);
    if (k === undefined) {
      k = map.size;
      map.set(key, k);
    }
    return k;
  };
  // Ids (`id="zr0-c0"`, `url(#zr0-c0)`) and class names (`class="zr0-cls-3"`, `.zr0-cls-3:hover`).
  return html.replace(/(id="|url\(#|class="|\.)zr(\d+)-(?:(c\d+)|cls-(\d+))\b/g, (_, before: string, n: string, id?: string, style?: string) => {
    const chart = next(charts, n);
    return style === undefined ? `${before}zr${chart}-${id}` : `${before}zr${chart}-cls-${next(styles, style)}`;
  });
}
