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
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const MIN_DAY = 0; // 1970-01-01
const MAX_DAY = dayOf(Date.UTC(2200, 0, 1));
/** The UTC day of a date or date-time, or undefined when it is not one. */
export function parseDay(text) {
    const parsed = DATE_ONLY.test(text)
        ? DateTime.fromISO(text, { zone: 'utc' })
        : DateTime.fromISO(text, { zone: 'utc', setZone: false }).toUTC();
    if (!parsed.isValid)
        return undefined;
    const day = Math.floor(parsed.toMillis() / DAY_MS);
    return day >= MIN_DAY && day <= MAX_DAY ? day : undefined;
}
function parseInteger(text) {
    if (!/^\d{1,15}$/.test(text))
        return undefined;
    return Number(text);
}
export function parseAnalyticsQuery(params, nowMs, rule = { defaultLimit: DEFAULT_LIMIT, maxLimit: MAX_LIMIT }) {
    const details = [];
    const dateTo = params.get('dateTo');
    const dateFrom = params.get('dateFrom');
    // Without dateTo the window runs up to now, so it includes today's partial data.
    let toDay = dayOf(nowMs) + 1;
    if (dateTo !== null) {
        toDay = parseDay(dateTo);
        if (toDay === undefined)
            details.push({ message: `dateTo must be a date (YYYY-MM-DD or ISO 8601), got "${dateTo}"` });
    }
    let fromDay = toDay === undefined ? undefined : toDay - DEFAULT_WINDOW_DAYS;
    if (dateFrom !== null) {
        fromDay = parseDay(dateFrom);
        if (fromDay === undefined) {
            details.push({ message: `dateFrom must be a date (YYYY-MM-DD or ISO 8601), got "${dateFrom}"` });
        }
    }
    if (fromDay !== undefined && toDay !== undefined) {
        if (fromDay >= toDay)
            details.push({ message: 'dateFrom must be before dateTo (dateTo is exclusive)' });
        else if (toDay - fromDay > MAX_WINDOW_DAYS) {
            details.push({ message: `the window may span at most ${MAX_WINDOW_DAYS} days` });
        }
    }
    let limit = rule.defaultLimit;
    const limitText = params.get('limit');
    if (limitText !== null) {
        limit = parseInteger(limitText);
        if (limit === undefined || limit < 1 || limit > rule.maxLimit) {
            details.push({ message: `limit must be an integer from 1 to ${rule.maxLimit}, got "${limitText}"` });
        }
    }
    let offset = 0;
    const offsetText = params.get('offset');
    if (offsetText !== null) {
        offset = parseInteger(offsetText);
        if (offset === undefined)
            details.push({ message: `offset must be an integer >= 0, got "${offsetText}"` });
    }
    if (details.length > 0 || fromDay === undefined || toDay === undefined || limit === undefined || offset === undefined) {
        return { ok: false, details };
    }
    return { ok: true, query: { fromDay, toDay, limit, offset } };
}
//# sourceMappingURL=analytics-query.js.map