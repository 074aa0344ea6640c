export const METRICS = ['visitors', 'views'];
function compareRows(a, b) {
    if (a.total !== b.total)
        return b.total - a.total;
    return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}
/** Uniques of a pool of `size` over days with `seen` visitors each: N·(1 − Π(1 − k/N)). */
function uniques(size, stayedAway) {
    return size === 0 ? 0 : Math.round(size * (1 - stayedAway));
}
function fromPools(human, ai, both) {
    return { human: human + both, ai: ai + both, total: human + ai + both };
}
export function buildListing(model, metric, days) {
    return metric === 'visitors' ? buildVisitors(model, days) : buildViews(model, days);
}
function buildVisitors(model, days) {
    const count = model.paths.length;
    // Probability that a pool member stayed away on every day of the window.
    const awayHuman = new Float64Array(count).fill(1);
    const awayAi = new Float64Array(count).fill(1);
    const awayBoth = new Float64Array(count).fill(1);
    const siteAway = { human: 1, ai: 1, both: 1 };
    const { poolHuman, poolAi, poolBoth, sitePool } = model;
    for (const day of days) {
        for (let i = 0; i < count; i++) {
            const kh = day.human[i] ?? 0;
            const ka = day.ai[i] ?? 0;
            const kb = day.both[i] ?? 0;
            if (kh > 0)
                awayHuman[i] = (awayHuman[i] ?? 1) * (1 - kh / (poolHuman[i] ?? 1));
            if (ka > 0)
                awayAi[i] = (awayAi[i] ?? 1) * (1 - ka / (poolAi[i] ?? 1));
            if (kb > 0)
                awayBoth[i] = (awayBoth[i] ?? 1) * (1 - kb / (poolBoth[i] ?? 1));
        }
        if (day.site.human > 0)
            siteAway.human *= 1 - day.site.human / sitePool.human;
        if (day.site.ai > 0)
            siteAway.ai *= 1 - day.site.ai / sitePool.ai;
        if (day.site.both > 0)
            siteAway.both *= 1 - day.site.both / sitePool.both;
    }
    const rows = [];
    for (let i = 0; i < count; i++) {
        const counts = fromPools(uniques(poolHuman[i] ?? 0, awayHuman[i] ?? 1), uniques(poolAi[i] ?? 0, awayAi[i] ?? 1), uniques(poolBoth[i] ?? 0, awayBoth[i] ?? 1));
        if (counts.total > 0)
            rows.push({ path: model.paths[i] ?? '', ...counts });
    }
    rows.sort(compareRows);
    const totals = fromPools(uniques(sitePool.human, siteAway.human), uniques(sitePool.ai, siteAway.ai), uniques(sitePool.both, siteAway.both));
    return { totals, rows };
}
function buildViews(model, days) {
    const count = model.paths.length;
    const human = new Float64Array(count);
    const ai = new Float64Array(count);
    for (const day of days) {
        for (let i = 0; i < count; i++) {
            human[i] = (human[i] ?? 0) + (day.humanViews[i] ?? 0);
            ai[i] = (ai[i] ?? 0) + (day.aiViews[i] ?? 0);
        }
    }
    const rows = [];
    const totals = { human: 0, ai: 0, total: 0 };
    for (let i = 0; i < count; i++) {
        const h = human[i] ?? 0;
        const a = ai[i] ?? 0;
        // Views are events: they add up across days, and the site's are the sum of its pages'.
        totals.human += h;
        totals.ai += a;
        if (h + a > 0)
            rows.push({ path: model.paths[i] ?? '', human: h, ai: a, total: h + a });
    }
    totals.total = totals.human + totals.ai;
    rows.sort(compareRows);
    return { totals, rows };
}
//# sourceMappingURL=window-listing.js.map