/**
 * Numeric options, checked against what the user typed. yargs' own `number` type turns
 * `abc` into NaN before any check sees it, so these options are parsed here: a bad value
 * is a usage error (exit 2) that quotes the value as typed.
 */
import { UsageError } from '../core/errors.js';
const DECIMAL = /^[+]?(\d+(\.\d*)?|\.\d+)$/;
const WHOLE = /^[+]?\d+$/;
/** Pure: what a rule expects, as the error line says it. */
export function describeRule(rule) {
    const kind = rule.integer ? 'a whole number' : 'a number';
    const bounds = [];
    if (rule.min !== undefined)
        bounds.push(`>= ${rule.min}`);
    if (rule.above !== undefined)
        bounds.push(`> ${rule.above}`);
    if (rule.max !== undefined)
        bounds.push(`<= ${rule.max}`);
    return bounds.length > 0 ? `${kind} ${bounds.join(' and ')}` : kind;
}
/**
 * Pure: parses an option's value (text from the command line or DOCPIPE_*, or a default
 * number; given twice, the last one wins), or throws a UsageError naming the value typed.
 */
export function parseNumberOption(name, raw, rule) {
    const given = Array.isArray(raw) ? raw.at(-1) : raw;
    const text = typeof given === 'number' ? String(given) : typeof given === 'string' ? given.trim() : '';
    const fail = () => {
        throw new UsageError(`invalid --${name} '${String(given)}': expected ${describeRule(rule)}`);
    };
    if (typeof given === 'number' ? !Number.isFinite(given) : !DECIMAL.test(text))
        fail();
    if (rule.integer && typeof given !== 'number' && !WHOLE.test(text))
        fail();
    const value = typeof given === 'number' ? given : Number(text);
    if (rule.integer && !Number.isInteger(value))
        fail();
    if (rule.min !== undefined && value < rule.min)
        fail();
    if (rule.above !== undefined && value <= rule.above)
        fail();
    if (rule.max !== undefined && value > rule.max)
        fail();
    return value;
}
export function numberOption(name, rule, spec) {
    return {
        // No yargs type: `number` would turn 'abc' into NaN before the check sees it, and
        // `string` would show as [string] in the help. Digits arrive as numbers, the rest as typed.
        describe: spec.describe,
        ...(spec.default === undefined ? {} : { default: spec.default }),
        coerce: (raw) => parseNumberOption(name, raw, rule),
    };
}
//# sourceMappingURL=options.js.map