/**
 * The sandbox's analytics, with the caches that make paging cheap: a listing is computed
 * once per (metric, project, window, data version) and then sliced page by page.
 */
import { arrivedShare, dayOf, isSettled, truncateToMinute } from './data-clock.js';
import { computeDayCounts, type DayCounts } from './day-counts.js';
import { LruCache } from './lru-cache.js';
import { DEFAULT_ENGAGEMENT, Engagement, type EngagementShape } from './engagement.js';
import { buildSiteModel, type SiteModel, type SiteShape } from './site-model.js';
import { buildListing, type Listing, type Metric } from './window-listing.js';

const LISTING_CACHE_SIZE = 48;
const MODEL_CACHE_SIZE = 32;
/** Memory for cached days: five Int32Arrays per page per day. */
const DAY_CACHE_BYTES = 32_000_000;

export class AnalyticsData {
  private readonly models = new LruCache<string, SiteModel>(MODEL_CACHE_SIZE);
  private readonly days: LruCache<string, DayCounts>;
  private readonly listings = new LruCache<string, Listing>(LISTING_CACHE_SIZE);

  private readonly engagements = new LruCache<string, Engagement>(MODEL_CACHE_SIZE);

  constructor(
    private readonly seed: number,
    private readonly shape: SiteShape,
    private readonly engagementShape: EngagementShape = DEFAULT_ENGAGEMENT,
  ) {
    const bytesPerDay = Math.max(1, shape.paths) * 5 * 4;
    this.days = new LruCache(Math.min(1500, Math.max(32, Math.floor(DAY_CACHE_BYTES / bytesPerDay))));
  }

  /** The full sorted listing of [fromDay, toDay) as seen at `nowMs`. */
  listing(metric: Metric, projectId: string, fromDay: number, toDay: number, nowMs: number): Listing {
    // Data moves at most once a minute, and not at all once the window is settled.
    const now = truncateToMinute(nowMs);
    const version = isSettled(toDay, now) ? 'final' : String(now);
    const key = `${metric}\u0000${projectId}\u0000${fromDay}\u0000${toDay}\u0000${version}`;
    const cached = this.listings.get(key);
    if (cached) return cached;
    const model = this.model(projectId);
    const lastDay = Math.min(toDay, dayOf(now) + 1);
    const days: DayCounts[] = [];
    for (let day = fromDay; day < lastDay; day++) days.push(this.day(model, projectId, day, now));
    const listing = buildListing(model, metric, days);
    this.listings.set(key, listing);
    return listing;
  }

  /** The project's site (its pages), built once. */
  model(projectId: string): SiteModel {
    let model = this.models.get(projectId);
    if (!model) {
      model = buildSiteModel(this.seed, projectId, this.shape);
      this.models.set(projectId, model);
    }
    return model;
  }

  /** The project's feedback, searches and assistant conversations. */
  engagement(projectId: string): Engagement {
    let found = this.engagements.get(projectId);
    if (!found) {
      found = new Engagement(this.model(projectId), this.engagementShape);
      this.engagements.set(projectId, found);
    }
    return found;
  }

  private day(model: SiteModel, projectId: string, day: number, now: number): DayCounts {
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
