/**
 * The traffic of one project on one UTC day: for every page, how many visitors of each
 * pool came, and how many views they made; and the same pools for the whole site.
 * Counts are integers by construction, so a one-day window reports exactly these.
 */
import { hashInts, stochasticRound } from './random.js';
/** 1970-01-01 was a Thursday; index 0 is Sunday. Humans read docs at work, bots do not care. */
const HUMAN_WEEKDAY = [0.5, 1, 1.06, 1.05, 1, 0.88, 0.45];
const AI_WEEKDAY = [0.9, 1, 1, 1.02, 1, 0.97, 0.88];
const TREND_ORIGIN_DAY = 20_454; // 2026-01-01
const CHANNEL = {
    siteNoise: 11,
    humanNoise: 12,
    aiNoise: 13,
    humanRound: 14,
    aiRound: 15,
    bothRound: 16,
    humanShare: 17,
    aiShare: 18,
    bothShare: 19,
    humanViews: 20,
    aiViews: 21,
    pagesPerVisitor: 22,
    siteRound: 23,
};
function sigmoid(x) {
    return 1 / (1 + Math.exp(-x));
}
/** Slow growth of human readership. */
export function humanTrend(day) {
    return 0.8 + 0.3 * sigmoid((day - TREND_ORIGIN_DAY) / 240);
}
/** AI traffic grows much faster: from a few percent of the site to a large share. */
export function aiTrend(day) {
    return 0.15 + 0.85 * sigmoid((day - TREND_ORIGIN_DAY - 60) / 150);
}
function weekday(day) {
    return (((day + 4) % 7) + 7) % 7;
}
function noise(low, high, key, day, i, channel) {
    return low + (high - low) * (hashInts(key, day, i, channel) / 0x1_0000_0000);
}
function draw(key, day, i, channel) {
    return hashInts(key, day, i, channel) / 0x1_0000_0000;
}
/** Scales a count to the share that has arrived; monotone in `share` for a fixed day. */
function arrived(count, share, u) {
    return share >= 1 ? count : Math.min(count, stochasticRound(count * share, u));
}
/** The counts of `day`, of which `share` (0..1, see data-clock) has arrived. */
export function computeDayCounts(model, day, share) {
    const count = model.paths.length;
    const human = new Int32Array(count);
    const ai = new Int32Array(count);
    const both = new Int32Array(count);
    const humanViews = new Int32Array(count);
    const aiViews = new Int32Array(count);
    const site = { human: 0, ai: 0, both: 0 };
    if (share <= 0)
        return { human, ai, both, humanViews, aiViews, site };
    const { key, minDailyVisitors } = model;
    const wd = weekday(day);
    const siteNoise = noise(0.9, 1.1, key, day, -1, CHANNEL.siteNoise);
    const humanFactor = (HUMAN_WEEKDAY[wd] ?? 1) * humanTrend(day) * siteNoise;
    const aiFactor = (AI_WEEKDAY[wd] ?? 1) * aiTrend(day) * siteNoise;
    const sums = { human: 0, ai: 0, both: 0 };
    const maxima = { human: 0, ai: 0, both: 0 };
    for (let i = 0; i < count; i++) {
        const nh = model.poolHuman[i] ?? 1;
        const na = model.poolAi[i] ?? 1;
        const nb = model.poolBoth[i] ?? 0;
        const ph = Math.min(0.95, (model.rateHuman[i] ?? 0) * humanFactor * noise(0.75, 1.25, key, day, i, CHANNEL.humanNoise));
        const pa = Math.min(0.95, (model.rateAi[i] ?? 0) * aiFactor * noise(0.75, 1.25, key, day, i, CHANNEL.aiNoise));
        let kh = Math.min(nh, stochasticRound(nh * ph, draw(key, day, i, CHANNEL.humanRound)));
        if (kh < minDailyVisitors)
            kh = Math.min(nh, minDailyVisitors);
        let ka = Math.min(na, stochasticRound(na * pa, draw(key, day, i, CHANNEL.aiRound)));
        let kb = nb === 0 ? 0 : Math.min(nb, stochasticRound(nb * Math.min(ph, pa), draw(key, day, i, CHANNEL.bothRound)));
        kh = arrived(kh, share, draw(key, day, i, CHANNEL.humanShare));
        ka = arrived(ka, share, draw(key, day, i, CHANNEL.aiShare));
        kb = arrived(kb, share, draw(key, day, i, CHANNEL.bothShare));
        human[i] = kh;
        ai[i] = ka;
        both[i] = kb;
        const humans = kh + kb;
        const bots = ka + kb;
        humanViews[i] =
            humans + stochasticRound(humans * ((model.viewsPerHuman[i] ?? 1) - 1), draw(key, day, i, CHANNEL.humanViews));
        aiViews[i] = bots + stochasticRound(bots * ((model.viewsPerAi[i] ?? 1) - 1), draw(key, day, i, CHANNEL.aiViews));
        sums.human += kh;
        sums.ai += ka;
        sums.both += kb;
        if (kh > maxima.human)
            maxima.human = kh;
        if (ka > maxima.ai)
            maxima.ai = ka;
        if (kb > maxima.both)
            maxima.both = kb;
    }
    // A site visitor reads a couple of pages a day, so the site's uniques are well below the
    // sum of the pages' — but never below the busiest page, nor above the site's pool.
    const pagesPerVisitor = noise(1.6, 2.2, key, day, -1, CHANNEL.pagesPerVisitor);
    const siteCount = (pool, channel) => Math.min(model.sitePool[pool], Math.max(maxima[pool], stochasticRound(sums[pool] / pagesPerVisitor, draw(key, day, channel, CHANNEL.siteRound))));
    site.human = siteCount('human', 1);
    site.ai = siteCount('ai', 2);
    site.both = siteCount('both', 3);
    return { human, ai, both, humanViews, aiViews, site };
}
//# sourceMappingURL=day-counts.js.map