/**
 * Pure: where a budget-bound backfill stands, for `docpipe status`. For each series (project
 * x metric x grain) of a pipeline: what is loaded and settled, which windows a sync would
 * fetch now (the backlog), and an estimate of the requests they cost: a window's last known
 * page count, else the series' recent average, else the project's, else one page. With the
 * request times of the last hour, `planEta` says when the backlog is done at the hourly
 * budget (a `--wait` run).
 */
import { grainOf, windowKey, type LoadedWindow, type Metric, type Window } from '../core/domain.js';
import { MAX_PAGE_SIZE } from '../api/analytics.js';
import { ENDPOINTS } from '../api/endpoints.js';
import { BUDGET_WINDOW_MS } from '../api/request-budget.js';
import { decideWindow, isSettled } from './plan-export.js';
import { closedUntil, parseDay, type Grain } from './windows.js';

/** Recent windows whose page counts make a series' average. */
const AVERAGE_OVER = 14;

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
  /**
   * No pipeline: the series is what the database holds, and every window it has loaded
   * counts as loaded. A pipeline's series counts only the windows it plans (none, while it
   * plans no closed window yet). @default false
   */
  onlyKnown?: boolean;
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
   * Whole days the newest complete window (fetched after it ended) ends before the newest
   * closed window of its grain (today for days, this week's Monday, this month's 1st): 0 when
   * up to date; null when no complete window is loaded.
   */
  dataAgeDays: number | null;
}

/**
 * Pages a walk of `rows` rows takes at a page size (an empty window still costs one request;
 * an endpoint without paging always one).
 */
export function pagesForRows(rows: number, pageSize: number | null = MAX_PAGE_SIZE): number {
  return pageSize === null ? 1 : Math.max(1, Math.ceil(rows / pageSize));
}

/**
 * The page size a metric's walk uses: its endpoint's largest page, or none (one request a
 * window): an endpoint without paging (feedback by page takes a limit, but has one page).
 */
const pageSizeOf = (metric: Metric): number | null => (ENDPOINTS[metric].paging === 'none' ? null : (ENDPOINTS[metric].maxLimit ?? null));

function average(values: readonly number[]): number | undefined {
  return values.length === 0 ? undefined : values.reduce((a, b) => a + b, 0) / values.length;
}

/** Average pages of the most recent windows among `known`. */
function recentAveragePages(known: readonly KnownWindow[]): number | undefined {
  const recent = known
    .filter((k) => k.rowCount !== null)
    .sort((a, b) => (a.end < b.end ? 1 : a.end > b.end ? -1 : 0))
    .slice(0, AVERAGE_OVER);
  return average(recent.map((k) => pagesForRows(k.rowCount ?? 0, pageSizeOf(k.metric))));
}

const daysBetween = (from: string, to: string): number => Math.round(parseDay(to).diff(parseDay(from), 'days').days);

export interface StatusInput {
  series: readonly SeriesPlan[];
  known: readonly KnownWindow[];
  spooled: readonly SpooledWindow[];
  now: number;
  lookbackDays: number;
}

export function planSeriesStatus(input: StatusInput): SeriesStatus[] {
  return input.series.map((s) => {
    const mine = input.known.filter((k) => k.metric === s.metric && k.projectId === s.projectId && grainOf(k) === s.grain);
    const byKey = new Map(mine.map((k) => [windowKey(k), k]));
    const spooled = new Map(
      input.spooled.filter((w) => w.metric === s.metric && w.projectId === s.projectId && grainOf(w.window) === s.grain).map((w) => [windowKey(w.window), w]),
    );
    const fallback =
      recentAveragePages(mine) ??
      recentAveragePages(input.known.filter((k) => k.projectId === s.projectId && grainOf(k) === s.grain)) ??
      recentAveragePages(input.known.filter((k) => k.projectId === s.projectId)) ??
      1;
    let backlogWindows = 0;
    let backlogRequests = 0;
    for (const window of s.windows) {
      const decision = decideWindow({ loaded: byKey, now: input.now, lookbackDays: input.lookbackDays }, window);
      if (decision.action === 'skip') continue;
      backlogWindows++;
      const inSpool = spooled.get(windowKey(window));
      if (inSpool?.completed) continue; // loaded from the spool, no request
      const known = byKey.get(windowKey(window));
      // An endpoint without paging costs one request a window, whatever the others' pages.
      const estimate =
        pageSizeOf(s.metric) === null ? 1 : known?.rowCount != null ? pagesForRows(known.rowCount, pageSizeOf(s.metric)) : Math.round(fallback);
      backlogRequests += Math.max(1, estimate - (inSpool?.pages ?? 0));
    }
    const newest = (list: readonly KnownWindow[]): Window | null => {
      const top = [...list].sort((a, b) => (a.end < b.end ? 1 : a.end > b.end ? -1 : 0))[0];
      return top ? { start: top.start, end: top.end } : null;
    };
    const newestLoaded = newest(mine);
    // How far behind the data is, from windows with complete counts: a window fetched before
    // it ended (today's) must not hide the closed days missing before it.
    const newestComplete = newest(mine.filter((k) => k.fetchedAt >= Date.parse(`${k.end}T00:00:00Z`)));
    const planned = new Set(s.windows.map(windowKey));
    return {
      projectId: s.projectId,
      metric: s.metric,
      grain: s.grain,
      windowsPlanned: s.windows.length,
      windowsLoaded: s.onlyKnown ? mine.length : mine.filter((k) => planned.has(windowKey(k))).length,
      newestLoaded,
      newestSettled: newest(mine.filter((k) => isSettled(k, k.fetchedAt, input.lookbackDays))),
      backlogWindows,
      backlogRequests,
      spooledPages: [...spooled.values()].reduce((n, w) => n + w.pages, 0),
      dataAgeDays: newestComplete ? Math.max(0, daysBetween(newestComplete.end, closedUntil(s.grain, input.now))) : null,
    };
  });
}

/** A window's length in days, on average (a month: a twelfth of a year). */
const GRAIN_DAYS: Record<Grain, number> = { day: 1, week: 7, month: 365.25 / 12, range: Number.POSITIVE_INFINITY };

/**
 * Pure: the requests a day of cron spends, on average, before it gets to the backlog: each
 * window is fetched when it closes and again once a day until it settles (`lookbackDays`
 * after its end), so a series costs (1 + lookbackDays) walks of its usual pages per window
 * length: a day series every day, a week series a seventh of that (all on the days a week
 * closes), a month series about a thirtieth.
 */
export function planDailyRequests(input: Pick<StatusInput, 'series' | 'known' | 'lookbackDays'>): number {
  let daily = 0;
  for (const s of input.series) {
    const mine = input.known.filter((k) => k.metric === s.metric && k.projectId === s.projectId && grainOf(k) === s.grain);
    const pages = pageSizeOf(s.metric) === null ? 1 : (recentAveragePages(mine) ?? recentAveragePages(input.known.filter((k) => k.projectId === s.projectId)) ?? 1);
    daily += ((1 + input.lookbackDays) * pages) / GRAIN_DAYS[s.grain];
  }
  return daily;
}

/**
 * Pure: the nightly runs a backlog of `backlog` requests needs at `perRun` requests a run,
 * each run spending `daily` of them first on the day's new and settling windows (most recent
 * first); null when a run's requests do not cover a day's: the backlog is never done.
 */
export function planRunsLeft(backlog: number, perRun: number, daily: number): number | null {
  if (backlog <= 0) return 0;
  if (backlog <= perRun) return 1;
  if (perRun <= daily) return null;
  return 1 + Math.ceil((backlog - perRun) / (perRun - daily));
}

/**
 * Pure: when `count` more requests are done if each goes as soon as the hourly budget allows
 * (a request may start once fewer than `perHour` started in the hour before it), given the
 * start times of the requests already made. Returns that time (ms); `now` when none is left.
 */
export function planEta(times: readonly number[], now: number, perHour: number, count: number): number {
  const limit = Math.floor(perHour);
  const starts = times.filter((t) => t > now - BUDGET_WINDOW_MS).sort((a, b) => a - b);
  let at = now;
  for (let i = 0; i < count; i++) {
    const blocking = starts[starts.length - limit];
    if (blocking !== undefined) at = Math.max(at, blocking + BUDGET_WINDOW_MS);
    starts.push(at);
  }
  return at;
}
