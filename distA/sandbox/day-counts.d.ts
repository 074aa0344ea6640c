import type { PoolSizes, SiteModel } from './site-model.js';
export interface DayCounts {
    readonly human: Int32Array;
    readonly ai: Int32Array;
    readonly both: Int32Array;
    readonly humanViews: Int32Array;
    readonly aiViews: Int32Array;
    readonly site: PoolSizes;
}
/** Slow growth of human readership. */
export declare function humanTrend(day: number): number;
/** AI traffic grows much faster: from a few percent of the site to a large share. */
export declare function aiTrend(day: number): number;
/** The counts of `day`, of which `share` (0..1, see data-clock) has arrived. */
export declare function computeDayCounts(model: SiteModel, day: number, share: number): DayCounts;
