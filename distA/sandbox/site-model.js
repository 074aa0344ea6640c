/**
 * The simulated traffic of one project, after DESIGN §6. Each page has three pools of
 * potential visitors: human only, AI only, and a small pool seen as both (the overlap that
 * makes `total` a little below `human + ai`). A pool of N visitors has k_d of them on day d;
 * the uniques of a window are N·(1 − Π_d(1 − k_d/N)), which equals k_d for one day and for
 * any window lies between the largest day and the sum of the days. Pure data: no I/O.
 */
import { between, createRng, hashInts, hashString } from './random.js';
import { generateSitePaths } from './site-paths.js';
const ZIPF_EXPONENT = 1.15;
/** How many days' worth of distinct visitors a page's pool holds (lower: more regulars). */
const HUMAN_POOL_DAYS = [6, 25];
const AI_POOL_DAYS = [8, 30];
const OVERLAP_SHARE = 0.05;
/** Pages a site visitor reads over a long window. */
const SITE_PAGES_PER_VISITOR = 2.5;
const AI_AFFINITY = {
    landing: 1,
    'api-reference': 2.2,
    guides: 1,
    sdks: 1.8,
    integrations: 0.9,
    components: 0.8,
    concepts: 1.3,
    changelog: 0.5,
    tutorials: 1.1,
};
export function buildSiteModel(seed, projectId, shape) {
    const key = hashInts(seed, hashString(projectId));
    const count = Math.max(1, Math.floor(shape.paths));
    const minDaily = Math.max(0, Math.floor(shape.minDailyVisitors));
    const site = generateSitePaths(count, createRng(key));
    // Daily page-visitors of the whole site on an ordinary weekday at full trend.
    const scale = between(0.6, 1.6, key, 1);
    const humanVolume = 20 * Math.pow(count, 0.95) * scale;
    const aiVolume = 0.5 * humanVolume;
    const humanWeights = new Float64Array(count);
    const aiWeights = new Float64Array(count);
    let humanSum = 0;
    let aiSum = 0;
    site.forEach((page, i) => {
        const w = Math.pow(i + 1, -ZIPF_EXPONENT) * between(0.6, 1.5, key, 2, i);
        const wa = w * AI_AFFINITY[page.family] * between(0.5, 1.6, key, 3, i);
        humanWeights[i] = w;
        aiWeights[i] = wa;
        humanSum += w;
        aiSum += wa;
    });
    const poolHuman = new Int32Array(count);
    const poolAi = new Int32Array(count);
    const poolBoth = new Int32Array(count);
    const rateHuman = new Float64Array(count);
    const rateAi = new Float64Array(count);
    const viewsPerHuman = new Float64Array(count);
    const viewsPerAi = new Float64Array(count);
    for (let i = 0; i < count; i++) {
        const expectedHuman = (humanVolume * (humanWeights[i] ?? 0)) / humanSum;
        const expectedAi = (aiVolume * (aiWeights[i] ?? 0)) / aiSum;
        const nh = Math.max(1, minDaily * 3, Math.round(expectedHuman * between(...HUMAN_POOL_DAYS, key, 4, i)));
        const na = Math.max(1, Math.round(expectedAi * between(...AI_POOL_DAYS, key, 5, i)));
        poolHuman[i] = nh;
        poolAi[i] = na;
        poolBoth[i] = Math.floor(OVERLAP_SHARE * Math.min(nh, na));
        rateHuman[i] = Math.min(0.6, expectedHuman / nh);
        rateAi[i] = Math.min(0.7, expectedAi / na);
        const landing = site[i]?.family === 'landing' ? 0.4 : 0;
        viewsPerHuman[i] = between(1.15, 2.2, key, 6, i) + landing;
        viewsPerAi[i] = between(1, 1.6, key, 7, i);
    }
    return {
        key,
        minDailyVisitors: minDaily,
        paths: site.map((p) => p.path),
        poolHuman,
        poolAi,
        poolBoth,
        rateHuman,
        rateAi,
        viewsPerHuman,
        viewsPerAi,
        sitePool: {
            human: sitePoolSize(poolHuman),
            ai: sitePoolSize(poolAi),
            both: sitePoolSize(poolBoth),
        },
    };
}
function sitePoolSize(pages) {
    let sum = 0;
    let max = 0;
    for (const n of pages) {
        sum += n;
        if (n > max)
            max = n;
    }
    // At least the largest page's pool, so a site day is never below its busiest page.
    return Math.max(max, Math.round(sum / SITE_PAGES_PER_VISITOR));
}
//# sourceMappingURL=site-model.js.map