/**
 * The sandbox's feedback, searches and assistant endpoints, with the paging the API
 * documents for each: `/feedback` pages by an opaque cursor with `hasMore`; `/assistant` by
 * the ULID of the last conversation with `hasMore`; `/searches` by an opaque cursor and ends
 * on a null `nextCursor` (no `hasMore`); `/feedback/by-page` and `/assistant/caller-stats`
 * do not page at all. A cursor the server did not make is a 400 with the API's error body.
 */
import { parseAnalyticsQuery } from './analytics-query.js';
import { ULID } from './engagement.js';
import { errorResponse, jsonResponse } from './sandbox-response.js';
export const ENGAGEMENT_LIMITS = {
    feedback: { defaultLimit: 50, maxLimit: 100 },
    'feedback/by-page': { defaultLimit: 10, maxLimit: 100 },
    searches: { defaultLimit: 50, maxLimit: 100 },
    assistant: { defaultLimit: 100, maxLimit: 1000 },
    'assistant/caller-stats': { defaultLimit: 1, maxLimit: 1 },
};
const invalid = (message) => errorResponse(400, 'Invalid query parameters', [{ message }]);
const encodeCursor = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
function decodeCursor(text) {
    try {
        return JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    }
    catch {
        return undefined;
    }
}
/** Filters of /feedback and /feedback/by-page; a 400 for a source the API does not know. */
function feedbackFilter(params) {
    const source = params.get('source');
    if (source !== null && !['code_snippet', 'contextual', 'agent', 'thumbs_only'].includes(source)) {
        return invalid(`source must be one of code_snippet, contextual, agent, thumbs_only, got "${source}"`);
    }
    const statuses = params.get('status')?.split(',').map((s) => s.trim()).filter(Boolean);
    return (f) => (source === null || f.source === source) && (!statuses || statuses.includes(f.status));
}
const served = (f) => {
    const { at: _at, ...rest } = f;
    return rest;
};
export function engagementPage(resource, params, data, now) {
    const parsed = parseAnalyticsQuery(params, now, ENGAGEMENT_LIMITS[resource]);
    if (!parsed.ok)
        return errorResponse(400, 'Invalid query parameters', parsed.details);
    const { fromDay, toDay, limit } = parsed.query;
    const cursor = params.get('cursor');
    switch (resource) {
        case 'feedback': {
            const filter = feedbackFilter(params);
            if (typeof filter !== 'function')
                return filter;
            const all = data.feedback(fromDay, toDay, now).filter(filter);
            let start = 0;
            if (cursor !== null) {
                // The cursor names the last entry served: [its time, its id].
                const after = decodeCursor(cursor);
                if (!Array.isArray(after) || typeof after[0] !== 'number' || typeof after[1] !== 'string')
                    return invalid('cursor is not valid');
                const [at, id] = after;
                start = all.findIndex((f) => f.at < at || (f.at === at && f.id < id));
                if (start < 0)
                    start = all.length;
            }
            const page = all.slice(start, start + limit);
            const last = page.at(-1);
            const hasMore = start + limit < all.length;
            return jsonResponse(200, { feedback: page.map(served), nextCursor: hasMore && last ? encodeCursor([last.at, last.id]) : null, hasMore });
        }
        case 'feedback/by-page': {
            const filter = feedbackFilter(params);
            if (typeof filter !== 'function')
                return filter;
            const byPath = new Map();
            for (const f of data.feedback(fromDay, toDay, now).filter(filter)) {
                const row = byPath.get(f.path) ?? { path: f.path, thumbsUp: 0, thumbsDown: 0, code: 0, total: 0 };
                if (f.source === 'contextual' && f.helpful === true)
                    row.thumbsUp++;
                if (f.source === 'contextual' && f.helpful === false)
                    row.thumbsDown++;
                if (f.source === 'code_snippet')
                    row.code++;
                row.total++;
                byPath.set(f.path, row);
            }
            const rows = [...byPath.values()].sort((a, b) => b.total - a.total || (a.path < b.path ? -1 : 1));
            return jsonResponse(200, { feedback: rows.slice(0, limit), hasMore: rows.length > limit });
        }
        case 'searches': {
            const { terms, totalSearches } = data.searches(fromDay, toDay, now);
            let start = 0;
            if (cursor !== null) {
                const decoded = decodeCursor(cursor);
                if (typeof decoded !== 'object' || decoded === null || !Number.isInteger(decoded.o))
                    return invalid('cursor is not valid');
                start = decoded.o;
            }
            const next = start + limit;
            return jsonResponse(200, {
                searches: terms.slice(start, next),
                totalSearches,
                nextCursor: next < terms.length ? encodeCursor({ o: next }) : null,
            });
        }
        case 'assistant': {
            if (cursor !== null && !ULID.test(cursor))
                return invalid('cursor must be a ULID');
            const all = data.conversations(fromDay, toDay, now);
            const start = cursor === null ? 0 : all.findIndex((c) => c.id > cursor);
            const from = start < 0 ? all.length : start;
            const page = all.slice(from, from + limit);
            const hasMore = from + limit < all.length;
            return jsonResponse(200, {
                conversations: page.map(({ at: _at, caller: _caller, ...c }) => c),
                nextCursor: hasMore ? (page.at(-1)?.id ?? null) : null,
                hasMore,
            });
        }
        case 'assistant/caller-stats':
            return jsonResponse(200, data.callerStats(fromDay, toDay, now));
    }
}
export function threadResponse(threadId, data, now) {
    if (!ULID.test(threadId))
        return errorResponse(400, 'Invalid thread ID', [{ message: 'threadId must be a ULID' }]);
    const thread = data.thread(threadId, now);
    return thread ? jsonResponse(200, thread) : errorResponse(404, 'Thread not found');
}
//# sourceMappingURL=engagement-routes.js.map