/**
 * The sandbox's analytics, with the caches that make paging cheap: a listing is computed
 * once per (metric, project, window, data version) and then sliced page by page.
 */
import { arrivedShare, dayOf, isSettled, truncateToMinute } from './data-clock.js';
import { computeDayCounts } from './day-counts.js';
import { LruCache } from './lru-cache.js';
import { DEFAULT_ENGAGEMENT, Engagement } from './engagement.js';
import { buildSiteModel } from './site-model.js';
import { buildListing } from './window-listing.js';
const LISTING_CACHE_SIZE = 48;
const MODEL_CACHE_SIZE = 32;
/** Memory for cached days: five Int32Arrays per page per day. */
const DAY_CACHE_BYTES = 32_000_000;
export class AnalyticsData {
    seed;
    shape;
    engagementShape;
    models = new LruCache(MODEL_CACHE_SIZE);
    days;
    listings = new LruCache(LISTING_CACHE_SIZE);
    engagements = new LruCache(MODEL_CACHE_SIZE);
    constructor(seed, shape, engagementShape = DEFAULT_ENGAGEMENT) {
        this.seed = seed;
        this.shape = shape;
        this.engagementShape = engagementShape;
        const bytesPerDay = Math.max(1, shape.paths) * 5 * 4;
        this.days = new LruCache(Math.min(1500, Math.max(32, Math.floor(DAY_CACHE_BYTES / bytesPerDay))));
    }
    /** The full sorted listing of [fromDay, toDay) as seen at `nowMs`. */
    listing(metric, projectId, fromDay, toDay, nowMs) {
        // Data moves at most once a minute, and not at all once the window is settled.
        const now = truncateToMinute(nowMs);
        const version = isSettled(toDay, now) ? 'final' : String(now);
        const key = `${metric}\u0000${projectId}\u0000${fromDay}\u0000${toDay}\u0000${version}`;
        const cached = this.listings.get(key);
        if (cached)
            return cached;
        const model = this.model(projectId);
        const lastDay = Math.min(toDay, dayOf(now) + 1);
        const days = [];
        for (let day = fromDay; day < lastDay; day++)
            days.push(this.day(model, projectId, day, now));
        const listing = buildListing(model, metric, days);
        this.listings.set(key, listing);
        return listing;
    }
    /** The project's site (its pages), built once. */
    model(projectId) {
        let model = this.models.get(projectId);
        if (!model) {
            model = buildSiteModel(this.seed, projectId, this.shape);
            this.models.set(projectId, model);
        }
        return model;
    }
    /** The project's feedback, searches and assistant conversations. */
    engagement(projectId) {
        let found = this.engagements.get(projectId);
        if (!found) {
            found = new Engagement(this.model(projectId), this.engagementShape);
            this.engagements.set(projectId, found);
        }
        return found;
    }
    day(model, projectId, day, now) {
        const share = arrivedShare(day, now);
        const key = `${projectId}\u0000${day}\u0000${share === 1 ? 'final' : now}`;
        let counts = this.days.get(key);
        if (!counts) {
            counts = computeDayCounts(model, day, share);
            this.days.set(key, counts);
        }
        return counts;
    }
}
//# sourceMappingURL=analytics-data.js.map