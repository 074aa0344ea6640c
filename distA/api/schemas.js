/**
 * Response schemas, after ../shared/reference/*.json. Analytics pages are parsed strictly
 * (a page that breaks the schema is a DataError); agent jobs defensively, because the
 * OpenAPI file marks none of their fields required.
 */
import { z } from 'zod';
import { DataError } from '../core/errors.js';
/**
 * A count: any JSON number (JSON.parse turns `1e400` into Infinity) or null. One odd count
 * must not cost the window: the loader stores what no BIGINT can hold as NULL and flags it.
 */
const count = z.custom((v) => v === null || (typeof v === 'number' && !Number.isNaN(v)), {
    message: 'expected a number or null',
});
const counts = { human: count, ai: count, total: count };
const totalsSchema = z.object(counts);
const rowSchema = z.object({ path: z.string(), ...counts });
const pageSchemas = {
    visitors: z.object({ totals: totalsSchema, visitors: z.array(rowSchema), hasMore: z.boolean() }),
    views: z.object({ totals: totalsSchema, views: z.array(rowSchema), hasMore: z.boolean() }),
};
function describeIssue(error) {
    const issue = error.issues[0];
    if (!issue)
        return 'invalid response';
    const where = issue.path.length > 0 ? issue.path.join('.') : 'body';
    return `${where}: ${issue.message}`;
}
export function parseAnalyticsPage(metric, json, context) {
    const result = pageSchemas[metric].safeParse(json);
    if (!result.success) {
        throw new DataError(`${context} returned an unexpected body (${describeIssue(result.error)})`);
    }
    const data = result.data;
    return {
        totals: data.totals,
        rows: 'visitors' in data ? data.visitors : data.views,
        hasMore: data.hasMore,
    };
}
/** The AgentJob statuses the API documents; any other is stored verbatim and followed like `active`. */
export const API_STATUSES = ['active', 'completed', 'archived', 'failed'];
export const TERMINAL_STATUSES = new Set(['completed', 'archived', 'failed']);
export function isKnownApiStatus(status) {
    return status !== null && API_STATUSES.includes(status);
}
/** Whether a pull-request link is a link: an absolute http(s) URL. */
export function isHttpUrl(value) {
    try {
        const url = new URL(value);
        return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
    }
    catch {
        return false;
    }
}
const REASON_FIELDS = ['error', 'errorMessage', 'failureReason', 'reason'];
/** The first reason field that holds text, or an object's `message`. */
function reasonOf(json) {
    for (const field of REASON_FIELDS) {
        const value = json[field];
        if (typeof value === 'string' && value.trim() !== '')
            return value.trim();
        if (value && typeof value === 'object' && typeof value.message === 'string') {
            return value.message.trim() || null;
        }
    }
    return null;
}
const optionalString = z.string().nullish().catch(null);
const agentJobSchema = z.object({
    id: z.union([z.string(), z.number().transform(String)]).nullish().catch(null),
    status: optionalString,
    source: z.object({ repository: optionalString, ref: optionalString }).nullish().catch(null),
    model: optionalString,
    prLink: optionalString,
    createdAt: optionalString,
    archivedAt: optionalString,
});
/** Parses an AgentJob defensively; only a body that is not an object at all is an error. */
export function parseAgentJob(json, context) {
    if (json === null || typeof json !== 'object' || Array.isArray(json)) {
        throw new DataError(`${context} returned an unexpected body (not an object)`);
    }
    const job = agentJobSchema.parse(json);
    const link = job.prLink ?? null;
    const linkOk = link === null || isHttpUrl(link);
    return {
        id: job.id ?? null,
        status: job.status ?? null,
        repository: job.source?.repository ?? null,
        ref: job.source?.ref ?? null,
        model: job.model ?? null,
        prLink: linkOk ? link : null,
        badPrLink: linkOk ? null : link,
        reason: reasonOf(json),
        createdAt: job.createdAt ?? null,
        archivedAt: job.archivedAt ?? null,
    };
}
export function isTerminalStatus(status) {
    return status !== null && TERMINAL_STATUSES.has(status);
}
//# sourceMappingURL=schemas.js.map