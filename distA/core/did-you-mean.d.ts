/** "Did you mean …": the closest of a few known words to what the user typed. */
/** Pure: the edit distance (insertions, deletions, substitutions) between two words. */
export declare function editDistance(a: string, b: string): number;
/**
 * Pure: the candidate closest to `typed` (case-insensitive), if it is close enough to be a
 * typo: at most a third of the word's letters differ (and at least one may).
 */
export declare function closestWord(typed: string, candidates: readonly string[]): string | undefined;
