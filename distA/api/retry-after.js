/**
 * Pure header parsing. `Retry-After` is either delta-seconds or an HTTP date (RFC 9110
 * §10.2.3); the API does not document it, so anything else is treated as absent.
 */
/** Milliseconds to wait, or undefined when the header is absent or unparseable. */
export function parseRetryAfter(value, nowMs) {
    if (value === null || value === undefined)
        return undefined;
    const text = value.trim();
    if (text === '')
        return undefined;
    if (/^\d+(\.\d+)?$/.test(text))
        return Math.round(Number(text) * 1000);
    // An HTTP date must name a weekday or month; Date.parse alone accepts too much.
    if (!/[a-z]{3}/i.test(text))
        return undefined;
    const at = Date.parse(text);
    if (Number.isNaN(at))
        return undefined;
    return Math.max(0, at - nowMs);
}
//# sourceMappingURL=retry-after.js.map