/**
 * Turns the days of a window into the API's listing: per-page rows ordered by total desc
 * then path asc (rows with no traffic left out), and site-wide totals.
 */
import type { DayCounts } from './day-counts.js';
import type { SiteModel } from './site-model.js';
export declare const METRICS: readonly ["visitors", "views"];
export type Metric = (typeof METRICS)[number];
export interface Counts {
    human: number;
    ai: number;
    total: number;
}
export interface ListingRow extends Counts {
    path: string;
}
export interface Listing {
    readonly totals: Counts;
    readonly rows: readonly ListingRow[];
}
export declare function buildListing(model: SiteModel, metric: Metric, days: readonly DayCounts[]): Listing;
