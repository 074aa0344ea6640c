/**
 * Pure: where a budget-bound backfill stands, for `docpipe status`. For each series (project
 * x metric x grain) of a pipeline: what is loaded and settled, which windows a sync would
 * fetch now (the backlog), and an estimate of the requests they cost: a window's last known
 * page count, else the series' recent average, else the project's, else one page. With the
 * request times of the last hour, `planEta` says when the backlog is done at the hourly
 * budget (a `--wait` run).
 */
import { type LoadedWindow, type Metric, type Window } from '../core/domain.js';
import { type Grain } from './windows.js';
/** What the database knows of a loaded window. */
export interface KnownWindow extends LoadedWindow {
    metric: Metric;
    projectId: string;
    rowCount: number | null;
}
/** What the spool holds of a window: pages received, and whether its walk completed. */
export interface SpooledWindow {
    metric: Metric;
    projectId: string;
    window: Window;
    pages: number;
    completed: boolean;
}
export interface SeriesPlan {
    projectId: string;
    metric: Metric;
    grain: Grain;
    /** The closed windows a sync plans for the series (empty when only the database is known). */
    windows: readonly Window[];
}
export interface SeriesStatus {
    projectId: string;
    metric: Metric;
    grain: Grain;
    windowsPlanned: number;
    windowsLoaded: number;
    newestLoaded: Window | null;
    newestSettled: Window | null;
    /** Windows a sync would fetch now (new, or unsettled and not fetched today). */
    backlogWindows: number;
    /** Estimated requests for them, less the pages already in the spool. */
    backlogRequests: number;
    spooledPages: number;
    /**
     * Whole days the newest loaded window ends before the newest closed window of its grain
     * (today for days, this week's Monday, this month's 1st): 0 when up to date; null when
     * nothing is loaded.
     */
    dataAgeDays: number | null;
}
/** Pure: the grain of a window from its dates (`range` when it is none of the others). */
export declare function grainOf(window: Window): Grain;
/**
 * Pages a walk of `rows` rows takes at a page size (an empty window still costs one request;
 * an endpoint without paging always one).
 */
export declare function pagesForRows(rows: number, pageSize?: number | null): number;
export interface StatusInput {
    series: readonly SeriesPlan[];
    known: readonly KnownWindow[];
    spooled: readonly SpooledWindow[];
    now: number;
    lookbackDays: number;
}
export declare function planSeriesStatus(input: StatusInput): SeriesStatus[];
/**
 * Pure: when `count` more requests are done if each goes as soon as the hourly budget allows
 * (a request may start once fewer than `perHour` started in the hour before it), given the
 * start times of the requests already made. Returns that time (ms); `now` when none is left.
 */
export declare function planEta(times: readonly number[], now: number, perHour: number, count: number): number;
