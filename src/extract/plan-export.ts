/**
 * Pure: which windows an export must fetch. A loaded window is *settled* once it was fetched
 * at least `lookbackDays` after it ended; it is never fetched again unless refreshed. An
 * unsettled one is fetched again for late data, at most once per UTC day; but a window not
 * over yet (today's day, this week) whose copy is from before its end holds partial counts,
 * and is fetched again by every export that asks for it.
 */
import { PAGE_METRICS, windowKey, type LoadedWindow, type Metric, type Window } from '../core/domain.js';
import { COARSE_FIRST, addDays, utcToday, type Grain } from './windows.js';

export type SkipReason = 'settled' | 'fetched-today';
export type FetchReason = 'new' | 'refresh' | 'unsettled';

export type WindowDecision =
  | { window: Window; action: 'fetch'; reason: FetchReason }
  | { window: Window; action: 'skip'; reason: SkipReason };

export interface ExportPlanInput {
  windows: readonly Window[];
  loaded: ReadonlyMap<string, LoadedWindow>;
  now: number;
  /** @default 2 */
  lookbackDays?: number;
  refresh?: boolean;
}

/**
 * The longest lookback taken (days): a year of late data. More is a typo (a window would be
 * fetched again every night for ever, each costing its requests).
 */
export const MAX_LOOKBACK_DAYS = 366;

export function isSettled(window: Window, fetchedAt: number, lookbackDays: number): boolean {
  const settlesAt = Date.parse(`${addDays(window.end, lookbackDays)}T00:00:00Z`);
  return fetchedAt >= settlesAt;
}

export function decideWindow(input: Omit<ExportPlanInput, 'windows'>, window: Window): WindowDecision {
  if (input.refresh) return { window, action: 'fetch', reason: 'refresh' };
  const loaded = input.loaded.get(windowKey(window));
  if (!loaded) return { window, action: 'fetch', reason: 'new' };
  if (isSettled(window, loaded.fetchedAt, input.lookbackDays ?? 2)) {
    return { window, action: 'skip', reason: 'settled' };
  }
  const partial = loaded.fetchedAt < Date.parse(`${window.end}T00:00:00Z`) && !isClosed(window, input.now);
  if (!partial && utcToday(loaded.fetchedAt) === utcToday(input.now)) {
    return { window, action: 'skip', reason: 'fetched-today' };
  }
  return { window, action: 'fetch', reason: 'unsettled' };
}

/** One decision per window, in the order given. */
export function planExport(input: ExportPlanInput): WindowDecision[] {
  return input.windows.map((window) => decideWindow(input, window));
}

/** Closed windows end on or before today (UTC): every day in them is over. */
export function isClosed(window: Window, now: number): boolean {
  return window.end <= utcToday(now);
}

/**
 * Pure: the order to fetch in. Each grain's windows go newest first (when the budget runs
 * out, the freshest data is what landed); several grains take turns, coarsest first, so a
 * backfill of months, weeks and days has the newest month and week after a few requests
 * instead of after every day. The sort is stable: series keep their given order.
 */
export function orderFetches<T extends { grain: Grain; window: Window }>(items: readonly T[]): T[] {
  const byGrain = COARSE_FIRST.map((grain) =>
    items
      .filter((item) => item.grain === grain)
      .sort((a, b) => (a.window.end === b.window.end ? 0 : a.window.end < b.window.end ? 1 : -1)),
  ).filter((list) => list.length > 0);
  const ordered: T[] = [];
  for (let round = 0; ordered.length < items.length; round++) {
    for (const list of byGrain) {
      const item = list[round];
      if (item) ordered.push(item);
    }
  }
  return ordered;
}

/**
 * Pure: the order of a run over several endpoints under the one organization budget:
 * visitors and views first, then the other endpoints; each part in `orderFetches` order
 * (coarse grains take turns, newest first).
 */
export function orderAllFetches<T extends { metric: Metric; grain: Grain; window: Window }>(items: readonly T[]): T[] {
  const isPage = (item: T): boolean => (PAGE_METRICS as readonly Metric[]).includes(item.metric);
  return [...orderFetches(items.filter(isPage)), ...orderFetches(items.filter((item) => !isPage(item)))];
}
