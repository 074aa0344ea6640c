import { isLiveOther } from '../spool/spool.js';
/** Completed walks in the spool that no live process owns (a live owner is walking or loading it). */
export function findCompletedWalks(spool) {
    return spool
        .walks()
        .filter((w) => !isLiveOther(w.owner()))
        .flatMap((spooled) => {
        const walk = spooled.completed();
        return walk ? [{ spooled, walk }] : [];
    });
}
/** Pure: whether the database's copy of the window is at least as recent as the walk. */
export function isSuperseded(walk, loaded) {
    return loaded !== undefined && loaded.fetchedAt >= walk.fetchedAt;
}
/**
 * Claims each completed walk for this process and sorts it: a walk the database has
 * overtaken (`loadedOf` gives the window as loaded, if it is) is removed from the spool at
 * once; the others are this process's to load.
 */
export function claimCompletedWalks(completed, loadedOf) {
    const claimed = { toLoad: [], discarded: [], busy: [] };
    for (const c of completed) {
        const have = loadedOf(c.walk);
        if (!c.spooled.claim()) {
            claimed.busy.push(c);
            continue;
        }
        if (isSuperseded(c.walk, have)) {
            c.spooled.remove();
            claimed.discarded.push(c);
            continue;
        }
        claimed.toLoad.push(c);
    }
    return claimed;
}
/** What the loader (./window-store.ts) needs of a completed walk in the spool. */
export function windowLoadOf(c) {
    return { walk: c.walk, file: c.spooled.pagesFile };
}
//# sourceMappingURL=spool-recovery.js.map