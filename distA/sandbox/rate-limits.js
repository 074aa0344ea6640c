/**
 * The API's documented rate limits (DESIGN §1), as the sandbox enforces them: 100 analytics
 * requests an hour per organization (all analytics endpoints share it), and 100 job
 * creations and follow-up messages an hour per project. Polling is not limited. A request
 * over the limit gets 429 with `Retry-After`: the seconds until its sliding hour frees a slot.
 */
import { HOUR_MS, planRequestSlot } from '../api/request-budget.js';
/** Which limit a request falls under, if any: pure. */
export function rateLimitScope(method, parts) {
    const [version, area, projectId, resource, , action] = parts;
    if (version === 'v1' && area === 'analytics' && method === 'GET')
        return { scope: 'analytics', kind: 'analytics' };
    if (version === 'v2' && area === 'agent' && resource === 'job' && method === 'POST' && (action === undefined || action === 'message')) {
        return { scope: `agent:${projectId ?? ''}`, kind: 'agent' };
    }
    return undefined;
}
export class RateLimits {
    analyticsPerHour;
    agentWritesPerHour;
    seen = new Map();
    constructor(options = {}) {
        this.analyticsPerHour = options.analyticsPerHour ?? 100;
        this.agentWritesPerHour = options.agentWritesPerHour ?? 100;
    }
    /**
     * Takes a slot for the request at `now`: 0 when it may go ahead, else the milliseconds
     * until a slot frees (the request is not counted).
     */
    take(method, parts, now) {
        const limit = rateLimitScope(method, parts);
        if (!limit)
            return 0;
        const perHour = limit.kind === 'analytics' ? this.analyticsPerHour : this.agentWritesPerHour;
        const times = (this.seen.get(limit.scope) ?? []).filter((t) => t > now - HOUR_MS);
        const wait = planRequestSlot(times, now, perHour);
        if (wait === 0)
            times.push(now);
        this.seen.set(limit.scope, times);
        return wait;
    }
}
//# sourceMappingURL=rate-limits.js.map