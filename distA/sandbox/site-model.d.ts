export interface SiteShape {
    /** Pages per project. */
    paths: number;
    /** Floor of a page's human visitors on every full day (0: the long tail has empty days). */
    minDailyVisitors: number;
}
export interface PoolSizes {
    human: number;
    ai: number;
    both: number;
}
/** One project's pages, as parallel arrays (thousands of pages are walked per day). */
export interface SiteModel {
    readonly key: number;
    readonly minDailyVisitors: number;
    readonly paths: readonly string[];
    readonly poolHuman: Int32Array;
    readonly poolAi: Int32Array;
    readonly poolBoth: Int32Array;
    /** Expected share of the pool that comes on an ordinary weekday at full trend. */
    readonly rateHuman: Float64Array;
    readonly rateAi: Float64Array;
    readonly viewsPerHuman: Float64Array;
    readonly viewsPerAi: Float64Array;
    /** Site-wide pools: people read several pages, so these are well below the sums. */
    readonly sitePool: PoolSizes;
}
export declare function buildSiteModel(seed: number, projectId: string, shape: SiteShape): SiteModel;
