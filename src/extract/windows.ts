/**
 * The window planner: pure functions that cut a half-open range of UTC calendar days into
 * windows `[start, end)` that partition it exactly (no day twice, none missing).
 */
import { DateTime } from 'luxon';
import type { Grain, Window } from '../core/domain.js';
import { UsageError } from '../core/errors.js';

export { GRAINS, type Grain } from '../core/domain.js';

/** Grains from coarsest to finest: the order a backfill of several grains takes them in. */
export const COARSE_FIRST: readonly Grain[] = ['range', 'month', 'week', 'day'];

/**
 * Longest range a plan may cover: about ten years. A typo such as `--from 0026-01-01` would
 * otherwise plan millions of windows (measured: 3.6 million took 73 s and 1.7 GB) before
 * the first request.
 */
export const MAX_RANGE_DAYS = 3_660;

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The first year docpipe takes: a date before it is a mistyped year (`0026` for 2026), which
 * would plan hundreds of thousands of windows, or ask the API for days it has nothing of.
 */
export const FIRST_YEAR = 2000;

/** Pure: the problem with a date's year (`what` names the option), or undefined. */
export function yearProblem(day: DateTime, value: string, what: string): string | undefined {
  return day.year < FIRST_YEAR ? `${what} ${value} is before ${FIRST_YEAR}: check the year` : undefined;
}

/** Parses a strict `YYYY-MM-DD` UTC date; `what` names the option in the error. */
export function parseDay(value: string, what = 'date'): DateTime {
  const parsed = ISO_DATE.test(value) ? DateTime.fromISO(value, { zone: 'utc' }) : null;
  if (!parsed?.isValid) {
    throw new UsageError(`invalid ${what} '${value}': expected a calendar date YYYY-MM-DD`);
  }
  return parsed;
}

export function formatDay(day: DateTime): string {
  return day.toUTC().toISODate() ?? '';
}

/** Shifts a `YYYY-MM-DD` by whole days. */
export function addDays(day: string, days: number): string {
  return formatDay(parseDay(day).plus({ days }));
}

/** Today's UTC date for a clock reading. */
export function utcToday(nowMs: number): string {
  return formatDay(DateTime.fromMillis(nowMs, { zone: 'utc' }).startOf('day'));
}

function startOfGrain(day: DateTime, grain: 'week' | 'month'): DateTime {
  return grain === 'week' ? day.startOf('week') : day.startOf('month');
}

function nextBoundary(day: DateTime, grain: 'week' | 'month'): DateTime {
  return grain === 'week' ? day.plus({ weeks: 1 }) : day.plus({ months: 1 });
}

function checkAligned(day: DateTime, grain: 'week' | 'month', option: string): void {
  const floor = startOfGrain(day, grain);
  if (floor.equals(day)) return;
  const ceil = nextBoundary(floor, grain);
  const unit = grain === 'week' ? 'a Monday (ISO week start)' : 'the 1st of a month';
  throw new UsageError(
    `${option} ${formatDay(day)} is not on a ${grain} boundary: use ${unit}, ` +
      `nearest are ${formatDay(floor)} and ${formatDay(ceil)}`,
  );
}

/** How a caller names the ends of a range in messages: the CLI's options, or the library's. */
export interface RangeNames {
  from: string;
  to: string;
}

export const CLI_RANGE_NAMES: RangeNames = { from: '--from', to: '--to' };

/**
 * Plans the windows of `[from, to)`. `week` windows start on Monday and `month` windows on
 * the 1st; a range whose ends are not on such a boundary is a usage error naming the
 * nearest boundaries. `range` is one window for the whole range.
 */
export function planWindows(from: string, to: string, grain: Grain, options: { tenYears?: boolean; names?: RangeNames } = {}): Window[] {
  const names = options.names ?? CLI_RANGE_NAMES;
  const start = parseDay(from, names.from);
  const end = parseDay(to, names.to);
  const typo = yearProblem(start, from, names.from);
  if (typo) throw new UsageError(typo);
  if (start >= end) {
    throw new UsageError(`${names.from} ${from} must be before ${names.to} ${to} (${names.to} is exclusive)`);
  }
  if ((options.tenYears ?? true) && end.diff(start, 'days').days > MAX_RANGE_DAYS) {
    throw new UsageError(
      `range ${from} .. ${to} spans more than ten years (${MAX_RANGE_DAYS} days): check the dates, or export it in parts`,
    );
  }
  if (grain === 'range') return [{ start: formatDay(start), end: formatDay(end) }];
  if (grain === 'week' || grain === 'month') {
    checkAligned(start, grain, names.from);
    checkAligned(end, grain, names.to);
  }
  const windows: Window[] = [];
  for (let cursor = start; cursor < end; ) {
    const next =
      grain === 'day' ? cursor.plus({ days: 1 }) : nextBoundary(cursor, grain);
    windows.push({ start: formatDay(cursor), end: formatDay(next) });
    cursor = next;
  }
  return windows;
}

/** Number of days in a window. */
export function windowDays(window: Window): number {
  return Math.round(parseDay(window.end).diff(parseDay(window.start), 'days').days);
}

/**
 * Refuses windows that start after today (UTC): there is no data for them yet, so they would
 * cost requests and load nothing. A window that starts today is allowed (it is partial, and
 * re-fetched until it settles). A `range` window, which has no period of its own, ends
 * tomorrow at the latest: one that ended years ahead would be re-fetched every day until then.
 */
export function checkNotFuture(windows: readonly Window[], nowMs: number, to: string, grain?: Grain, names: RangeNames = CLI_RANGE_NAMES): void {
  const today = utcToday(nowMs);
  const tomorrow = addDays(today, 1);
  if (grain === 'range' && windows.some((w) => w.start <= today && w.end > tomorrow)) {
    throw new UsageError(
      `${names.to} ${to} is past tomorrow (${tomorrow}, UTC): a range window ends tomorrow at the latest, ` +
        `as the days after it have no data yet; use ${names.to} ${tomorrow}`,
    );
  }
  const future = windows.filter((w) => w.start > today);
  if (future.length === 0) return;
  const last = windows.filter((w) => w.start <= today).at(-1);
  const hint = last ? `; the last window with data ends ${last.end}` : '';
  throw new UsageError(
    `${names.to} ${to} is past today (${today}, UTC): ${future.length} window${future.length === 1 ? '' : 's'} would start after today and have no data${hint}`,
  );
}

/** The first `grain` boundary on or after `day` (a Monday for weeks, the 1st for months). */
export function alignUp(day: string, grain: Grain): string {
  if (grain === 'day' || grain === 'range') return day;
  const parsed = parseDay(day);
  const floor = startOfGrain(parsed, grain);
  return formatDay(floor.equals(parsed) ? parsed : nextBoundary(floor, grain));
}

/**
 * The closed windows of an incremental sync: from `start` up to the last boundary on or
 * before today (UTC), so that every window ends on or before today. Empty when none is closed.
 */
export function planClosedWindows(start: string, grain: Exclude<Grain, 'range'>, nowMs: number): Window[] {
  const end = closedUntil(grain, nowMs);
  if (start >= end) return [];
  // The ten-year guard is for a range typed by hand; a pipeline's runs from its start to
  // today, and grows every day it runs.
  return planWindows(start, end, grain, { tenYears: false });
}

/** The end of the newest closed window of a grain: today for days, this week's Monday, this month's 1st. */
export function closedUntil(grain: Grain, nowMs: number): string {
  const today = parseDay(utcToday(nowMs));
  return formatDay(grain === 'week' || grain === 'month' ? startOfGrain(today, grain) : today);
}
