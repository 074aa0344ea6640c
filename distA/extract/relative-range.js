import { UsageError } from '../core/errors.js';
import { formatDay, parseDay, utcToday } from './windows.js';
export const LAST_UNITS = { d: 'days', w: 'weeks', m: 'months' };
const LAST = /^([1-9]\d{0,3})([dwm])$/;
/** Parses `--last`: a whole number and a unit, `7d`, `4w` or `3m`. */
export function parseLast(value) {
    const match = LAST.exec(value.trim());
    if (!match)
        throw new UsageError(`invalid --last '${value}': expected a count and a unit d, w or m, e.g. 7d, 4w or 3m`);
    return { count: Number(match[1]), unit: match[2] };
}
/** The start of the `grain` period that holds `day` (itself for day and range). */
function alignDown(day, grain) {
    if (grain === 'week')
        return day.startOf('week');
    if (grain === 'month')
        return day.startOf('month');
    return day;
}
/**
 * The range `--last` names: it ends at today (UTC, exclusive) aligned down to the window
 * grain, so that it holds only whole windows, and starts `count` units earlier, aligned down
 * too (a range never comes out shorter than asked). `--last 7d --window week` is the last
 * whole ISO week; `--last 3m --window month` the last three whole months.
 */
export function lastRange(spec, grain, nowMs) {
    const end = alignDown(parseDay(utcToday(nowMs)), grain);
    const start = alignDown(end.minus({ [LAST_UNITS[spec.unit]]: spec.count }), grain);
    return { from: formatDay(start), to: formatDay(end) };
}
/**
 * One range from `--from/--to` or `--last`: exactly one of the two forms. `defaultLast`
 * applies when neither is given; without it, a missing range is a usage error.
 */
export function resolveRange(args, grain, nowMs, defaultLast) {
    const explicit = args.from !== undefined || args.to !== undefined;
    if (args.last !== undefined && explicit) {
        throw new UsageError(`give either --last ${args.last} or --from/--to, not both`);
    }
    if (explicit) {
        if (args.from === undefined)
            throw new UsageError(`--to ${args.to ?? ''} needs --from`);
        if (args.to === undefined)
            throw new UsageError(`--from ${args.from} needs --to`);
        return { from: args.from, to: args.to };
    }
    const last = args.last ?? defaultLast;
    if (last === undefined)
        throw new UsageError('give a range: --from DATE --to DATE, or --last 7d|4w|3m');
    return { ...lastRange(parseLast(last), grain, nowMs), last };
}
//# sourceMappingURL=relative-range.js.map