/**
 * Realistic documentation paths for a simulated site, most prominent first: a handful of
 * landing pages, then a mix of API reference, guides, SDK pages, integrations and a long
 * tail of tutorials and changelog entries. Pure: the same rng gives the same site.
 */
export declare const PATH_FAMILIES: readonly ["landing", "api-reference", "guides", "sdks", "integrations", "components", "concepts", "changelog", "tutorials"];
export type PathFamily = (typeof PATH_FAMILIES)[number];
export interface SitePath {
    path: string;
    family: PathFamily;
}
/** `count` distinct paths, most prominent first. */
export declare function generateSitePaths(count: number, rng: () => number): SitePath[];
