/**
 * Validation of the analytics query string, as the API documents it: `dateFrom`/`dateTo`
 * as YYYY-MM-DD or ISO 8601 (UTC calendar days, `dateTo` exclusive), `limit` 1..250
 * (default 50), `offset` >= 0 (default 0). Every problem becomes one `details` message.
 */
import { DateTime } from 'luxon';
import { DAY_MS, dayOf } from './data-clock.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 250;
export const DEFAULT_WINDOW_DAYS = 30;
/** Protects the sandbox from a window it would take seconds to compute. */
export const MAX_WINDOW_DAYS = 3660;

export interface AnalyticsQuery {
  /** First UTC day (days since 1970-01-01), inclusive. */
  fromDay: number;
  /** Last UTC day, exclusive. */
  toDay: number;
  limit: number;
  offset: number;
}

export type QueryResult =
  | { ok: true; query: AnalyticsQuery }
  | { ok: false; details: { message: string }[] };

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const MIN_DAY = 0; // 1970-01-01
const MAX_DAY = dayOf(Date.UTC(2200, 0, 1));

/** The UTC day of a date or date-time, or undefined when it is not one. */
export function parseDay(text: string): number | undefined {
  const parsed = DATE_ONLY.test(text)
    ? DateTime.fromISO(text, { zone: 'utc' })
    : DateTime.fromISO(text, { zone: 'utc', setZone: false }).toUTC();
  if (!parsed.isValid) return undefined;
  const day = Math.floor(parsed.toMillis() / DAY_MS);
  return day >= MIN_DAY && day <= MAX_DAY ? day : undefined;
}

function parseInteger(text: string): number | undefined {
  if (!/^\d{1,15}$/.test(text)) return undefined;
  return Number(text);
}

/** The page sizes of an endpoint, and which paging parameters it takes. */
export interface LimitRule {
  /** @default 50 */
  defaultLimit: number;
  /** @default 250 */
  maxLimit: number;
  /** The endpoint takes `limit` (one it does not take is ignored, as by the API). @default true */
  takesLimit?: boolean;
  /** The endpoint takes `offset` (the cursor endpoints do not). @default true */
  takesOffset?: boolean;
}

export function parseAnalyticsQuery(
  params: URLSearchParams,
  nowMs: number,
  rule: LimitRule = { defaultLimit: DEFAULT_LIMIT, maxLimit: MAX_LIMIT },
): QueryResult {
  const details: { message: string }[] = [];

  const dateTo = params.get('dateTo');
  const dateFrom = params.get('dateFrom');
  // Without dateTo the window runs up to now, so it includes today's partial data.
  let toDay: number | undefined = dayOf(nowMs) + 1;
  if (dateTo !== null) {
    toDay = parseDay(dateTo);
    if (toDay === undefined) details.push({ message: `dateTo must be a date (YYYY-MM-DD or ISO 8601), got "${dateTo}"` });
  }
  let fromDay: number | undefined = toDay === undefined ? undefined : toDay - DEFAULT_WINDOW_DAYS;
  if (dateFrom !== null) {
    fromDay = parseDay(dateFrom);
    if (fromDay === undefined) {
      details.push({ message: `dateFrom must be a date (YYYY-MM-DD or ISO 8601), got "${dateFrom}"` });
    }
  }
  if (fromDay !== undefined && toDay !== undefined) {
    if (fromDay >= toDay) details.push({ message: 'dateFrom must be before dateTo (dateTo is exclusive)' });
    else if (toDay - fromDay > MAX_WINDOW_DAYS) {
      details.push({ message: `the window may span at most ${MAX_WINDOW_DAYS} days` });
    }
  }

  let limit: number | undefined = rule.defaultLimit;
  const limitText = rule.takesLimit === false ? null : params.get('limit');
  if (limitText !== null) {
    limit = parseInteger(limitText);
    if (limit === undefined || limit < 1 || limit > rule.maxLimit) {
      details.push({ message: `limit must be an integer from 1 to ${rule.maxLimit}, got "${limitText}"` });
    }
  }

  let offset: number | undefined = 0;
  const offsetText = rule.takesOffset === false ? null : params.get('offset');
  if (offsetText !== null) {
    offset = parseInteger(offsetText);
    if (offset === undefined) details.push({ message: `offset must be an integer >= 0, got "${offsetText}"` });
  }

  if (details.length > 0 || fromDay === undefined || toDay === undefined || limit === undefined || offset === undefined) {
    return { ok: false, details };
  }
  return { ok: true, query: { fromDay, toDay, limit, offset } };
}
