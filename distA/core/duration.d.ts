/** Pure: milliseconds of `text`; `option` names the flag in the error. */
export declare function parseDuration(text: string, option: string): number;
/** `1 h 5 min`, `3 min`, `40 s`: a wait as a person reads it. */
export declare function formatDuration(ms: number): string;
