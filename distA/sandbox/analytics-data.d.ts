import { Engagement, type EngagementShape } from './engagement.js';
import { type SiteModel, type SiteShape } from './site-model.js';
import { type Listing, type Metric } from './window-listing.js';
export declare class AnalyticsData {
    private readonly seed;
    private readonly shape;
    private readonly engagementShape;
    private readonly models;
    private readonly days;
    private readonly listings;
    private readonly engagements;
    constructor(seed: number, shape: SiteShape, engagementShape?: EngagementShape);
    /** The full sorted listing of [fromDay, toDay) as seen at `nowMs`. */
    listing(metric: Metric, projectId: string, fromDay: number, toDay: number, nowMs: number): Listing;
    /** The project's site (its pages), built once. */
    model(projectId: string): SiteModel;
    /** The project's feedback, searches and assistant conversations. */
    engagement(projectId: string): Engagement;
    private day;
}
