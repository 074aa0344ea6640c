/** Durations as people type them on a command line: `90s`, `45m`, `6h`, `2d`, or bare seconds. */
import { UsageError } from './errors.js';
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** Pure: milliseconds of `text`; `option` names the flag in the error. */
export function parseDuration(text, option) {
    const match = /^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$/i.exec(text);
    const unit = (match?.[2]?.toLowerCase() || 's');
    const ms = match ? Number(match[1]) * UNIT_MS[unit] : Number.NaN;
    if (!Number.isFinite(ms) || ms <= 0) {
        throw new UsageError(`invalid ${option} '${text}': expected a duration such as 90s, 45m, 6h or 2d`);
    }
    return Math.round(ms);
}
/** `1 h 5 min`, `3 min`, `40 s`: a wait as a person reads it. */
export function formatDuration(ms) {
    const s = Math.max(0, Math.round(ms / 1000));
    if (s < 60)
        return `${s} s`;
    const m = Math.round(s / 60);
    if (m < 60)
        return `${m} min`;
    const h = Math.floor(m / 60);
    return m % 60 === 0 ? `${h} h` : `${h} h ${m % 60} min`;
}
//# sourceMappingURL=duration.js.map