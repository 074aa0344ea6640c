/**
 * Pure: which windows an export must fetch. A loaded window is *settled* once it was fetched
 * at least `lookbackDays` after it ended; it is never fetched again unless refreshed. An
 * unsettled one is fetched again for late data, at most once per UTC day.
 */
import { windowKey, type LoadedWindow, type Window } from '../core/domain.js';
import { addDays, utcToday } from './windows.js';

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
  if (utcToday(loaded.fetchedAt) === utcToday(input.now)) {
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
