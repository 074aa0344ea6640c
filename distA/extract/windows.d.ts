/**
 * The window planner: pure functions that cut a half-open range of UTC calendar days into
 * windows `[start, end)` that partition it exactly (no day twice, none missing).
 */
import { DateTime } from 'luxon';
import type { Window } from '../core/domain.js';
export declare const GRAINS: readonly ["day", "week", "month", "range"];
export type Grain = (typeof GRAINS)[number];
/** Grains from coarsest to finest: the order a backfill of several grains takes them in. */
export declare const COARSE_FIRST: readonly Grain[];
/**
 * Longest range a plan may cover: about ten years. A typo such as `--from 0026-01-01` would
 * otherwise plan millions of windows (measured: 3.6 million took 73 s and 1.7 GB) before
 * the first request.
 */
export declare const MAX_RANGE_DAYS = 3660;
/** Parses a strict `YYYY-MM-DD` UTC date; `what` names the option in the error. */
export declare function parseDay(value: string, what?: string): DateTime;
export declare function formatDay(day: DateTime): string;
/** Shifts a `YYYY-MM-DD` by whole days. */
export declare function addDays(day: string, days: number): string;
/** Today's UTC date for a clock reading. */
export declare function utcToday(nowMs: number): string;
/**
 * Plans the windows of `[from, to)`. `week` windows start on Monday and `month` windows on
 * the 1st; a range whose ends are not on such a boundary is a usage error naming the
 * nearest boundaries. `range` is one window for the whole range.
 */
export declare function planWindows(from: string, to: string, grain: Grain): Window[];
/** Number of days in a window. */
export declare function windowDays(window: Window): number;
/**
 * Refuses windows that start after today (UTC): there is no data for them yet, so they would
 * cost requests and load nothing. A window that starts today is allowed (it is partial, and
 * re-fetched until it settles).
 */
export declare function checkNotFuture(windows: readonly Window[], nowMs: number, to: string): void;
/** The first `grain` boundary on or after `day` (a Monday for weeks, the 1st for months). */
export declare function alignUp(day: string, grain: Grain): string;
/**
 * The closed windows of an incremental sync: from `start` up to the last boundary on or
 * before today (UTC), so that every window ends on or before today. Empty when none is closed.
 */
export declare function planClosedWindows(start: string, grain: Exclude<Grain, 'range'>, nowMs: number): Window[];
/** The end of the newest closed window of a grain: today for days, this week's Monday, this month's 1st. */
export declare function closedUntil(grain: Grain, nowMs: number): string;
