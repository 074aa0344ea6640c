/**
 * The domain types every layer shares: what is measured (metric), over which window, and the
 * rows and totals the API returns. The API, extract and load layers all import from here, so
 * none of them imports another's internals.
 */
/**
 * Every analytics endpoint docpipe exports, by its command-line name. Their paging, page
 * size, schema and table are declared in src/api/endpoints.ts.
 */
export const METRICS = ['visitors', 'views', 'feedback', 'feedback-by-page', 'searches', 'assistant', 'caller-stats'];
/** The offset-paged metrics with per-page rows and totals (the tables doctor checks). */
export const PAGE_METRICS = ['visitors', 'views'];
/** A window's identity in maps and logs: `start/end`. */
export function windowKey(window) {
    return `${window.start}/${window.end}`;
}
/**
 * Pure: why `id` cannot be a project id, or undefined when it can. A project id is one path
 * segment of every API URL and names the spool's folders: `.`, `..`, a slash or a control
 * character would point somewhere else.
 */
export function projectIdProblem(id) {
    if (id === '')
        return 'it is empty';
    if (id === '.' || id === '..')
        return 'it is a relative path';
    if (/[/\\]/.test(id))
        return 'it contains a slash';
    // eslint-disable-next-line no-control-regex -- control characters are what is refused
    if (/[\u0000-\u0020\u007f]/.test(id))
        return 'it contains a space or a control character';
    if (/[?#%]/.test(id))
        return 'it contains ?, # or %';
    return undefined;
}
//# sourceMappingURL=domain.js.map