import type { EChartsOption } from 'echarts';
import type { DailyPoint, JobOutcomes, TopPages, WeekPoint } from './report-data.js';
export declare const COLORS: {
    readonly human: "#2563eb";
    readonly ai: "#f97316";
    readonly total: "#334155";
    readonly views: "#16a34a";
    readonly missing: "#cbd5e1";
};
export declare function visitorsOption(daily: readonly DailyPoint[]): EChartsOption;
export declare function aiShareOption(daily: readonly DailyPoint[]): EChartsOption;
export declare function topPagesOption(top: TopPages): EChartsOption;
export declare function viewsVsVisitorsOption(daily: readonly DailyPoint[]): EChartsOption;
export declare function weeksOption(weeks: readonly WeekPoint[]): EChartsOption;
export declare function jobsOption(jobs: JobOutcomes): EChartsOption;
/** Renders an option to a standalone SVG string. */
export declare function renderSvg(option: EChartsOption, size?: {
    width?: number;
    height?: number;
}): string;
