/** "Did you mean …": the closest of a few known words to what the user typed. */
/** Pure: the edit distance (insertions, deletions, substitutions) between two words. */
export function editDistance(a, b) {
    let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
        const current = [i];
        for (let j = 1; j <= b.length; j++) {
            const cost = a[i - 1] === b[j - 1] ? 0 : 1;
            current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
        }
        previous = current;
    }
    return previous[b.length] ?? 0;
}
/**
 * Pure: the candidate closest to `typed` (case-insensitive), if it is close enough to be a
 * typo: at most a third of the word's letters differ (and at least one may).
 */
export function closestWord(typed, candidates) {
    const word = typed.toLowerCase();
    let best;
    for (const candidate of candidates) {
        const distance = editDistance(word, candidate.toLowerCase());
        if (!best || distance < best.distance)
            best = { candidate, distance };
    }
    if (!best)
        return undefined;
    return best.distance <= Math.max(1, Math.floor(word.length / 3)) ? best.candidate : undefined;
}
//# sourceMappingURL=did-you-mean.js.map