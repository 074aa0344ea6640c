/**
 * Pure: which windows an export must fetch. A loaded window is *settled* once it was fetched
 * at least `lookbackDays` after it ended; it is never fetched again unless refreshed. An
 * unsettled one is fetched again for late data, at most once per UTC day.
 */
import { type LoadedWindow, type Metric, type Window } from '../core/domain.js';
import { type Grain } from './windows.js';
export type SkipReason = 'settled' | 'fetched-today';
export type FetchReason = 'new' | 'refresh' | 'unsettled';
export type WindowDecision = {
    window: Window;
    action: 'fetch';
    reason: FetchReason;
} | {
    window: Window;
    action: 'skip';
    reason: SkipReason;
};
export interface ExportPlanInput {
    windows: readonly Window[];
    loaded: ReadonlyMap<string, LoadedWindow>;
    now: number;
    /** @default 2 */
    lookbackDays?: number;
    refresh?: boolean;
}
export declare function isSettled(window: Window, fetchedAt: number, lookbackDays: number): boolean;
export declare function decideWindow(input: Omit<ExportPlanInput, 'windows'>, window: Window): WindowDecision;
/** One decision per window, in the order given. */
export declare function planExport(input: ExportPlanInput): WindowDecision[];
/** Closed windows end on or before today (UTC): every day in them is over. */
export declare function isClosed(window: Window, now: number): boolean;
/**
 * Pure: the order to fetch in. Each grain's windows go newest first (when the budget runs
 * out, the freshest data is what landed); several grains take turns, coarsest first, so a
 * backfill of months, weeks and days has the newest month and week after a few requests
 * instead of after every day. The sort is stable: series keep their given order.
 */
export declare function orderFetches<T extends {
    grain: Grain;
    window: Window;
}>(items: readonly T[]): T[];
/**
 * Pure: the order of a run over several endpoints under the one organization budget:
 * visitors and views first, then the other endpoints; each part in `orderFetches` order
 * (coarse grains take turns, newest first).
 */
export declare function orderAllFetches<T extends {
    metric: Metric;
    grain: Grain;
    window: Window;
}>(items: readonly T[]): T[];
