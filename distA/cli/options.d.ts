export interface NumberRule {
    /** Only whole numbers. @default false */
    integer?: boolean;
    /** Smallest value allowed (inclusive). */
    min?: number;
    /** Values must be strictly above this. */
    above?: number;
    /** Largest value allowed (inclusive). */
    max?: number;
}
/** Pure: what a rule expects, as the error line says it. */
export declare function describeRule(rule: NumberRule): string;
/**
 * Pure: parses an option's value (text from the command line or DOCPIPE_*, or a default
 * number; given twice, the last one wins), or throws a UsageError naming the value typed.
 */
export declare function parseNumberOption(name: string, raw: unknown, rule: NumberRule): number;
/**
 * A yargs option for a number checked by `rule`. `default` is shown in the help and goes
 * through the same parse.
 */
export declare function numberOption(name: string, rule: NumberRule, spec: {
    describe: string;
    default: number;
}): {
    describe: string;
    default: number;
    coerce: (raw: unknown) => number;
};
export declare function numberOption(name: string, rule: NumberRule, spec: {
    describe: string;
}): {
    describe: string;
    coerce: (raw: unknown) => number;
};
