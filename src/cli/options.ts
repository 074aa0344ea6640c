/**
 * Numeric options, checked against what the user typed. yargs' own `number` type turns
 * `abc` into NaN before any check sees it, so these options are parsed here: a bad value
 * is a usage error (exit 2) that quotes the value as typed.
 */
import { UsageError } from '../core/errors.js';

export interface NumberRule {
  /** Only whole numbers. @default false */
  integer?: boolean;
  /** Smallest value allowed (inclusive). */
  min?: number;
  /** Values must be strictly above this. */
  above?: number;
  /** Largest value allowed (inclusive). */
  max?: number;
  /** A number of seconds, which may also be typed with a unit: `90s`, `45m`, `2h`, `1d`. @default false */
  seconds?: boolean;
}

const DECIMAL = /^[+]?(\d+(\.\d*)?|\.\d+)$/;
const WHOLE = /^[+]?\d+$/;
/** Without a lower bound, a value may be negative (`--seed -1`). */
const SIGNED_DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;
const SIGNED_WHOLE = /^[+-]?\d+$/;
const WITH_UNIT = /^[+]?(\d+(?:\.\d*)?|\.\d+)\s*([smhd])$/i;
const SECONDS_OF = { s: 1, m: 60, h: 3_600, d: 86_400 } as const;

/** Pure: what a rule expects, as the error line says it. */
export function describeRule(rule: NumberRule): string {
  const kind = rule.seconds ? 'a number of seconds' : rule.integer ? 'a whole number' : 'a number';
  const bounds: string[] = [];
  if (rule.min !== undefined) bounds.push(`>= ${rule.min}`);
  if (rule.above !== undefined) bounds.push(`> ${rule.above}`);
  if (rule.max !== undefined) bounds.push(`<= ${rule.max}`);
  const units = rule.seconds ? ', or a duration such as 90s, 45m or 2h' : '';
  return `${bounds.length > 0 ? `${kind} ${bounds.join(' and ')}` : kind}${units}`;
}

/**
 * Pure: parses an option's value (text from the command line or DOCPIPE_*, or a default
 * number; given twice, the last one wins), or throws a UsageError naming the value typed.
 */
export function parseNumberOption(name: string, raw: unknown, rule: NumberRule): number {
  const given: unknown = Array.isArray(raw) ? raw.at(-1) : raw;
  const text = typeof given === 'number' ? String(given) : typeof given === 'string' ? given.trim() : '';
  const fail = (): never => {
    throw new UsageError(`invalid --${name} '${String(given)}': expected ${describeRule(rule)}`);
  };
  const withUnit = rule.seconds && typeof given === 'string' ? WITH_UNIT.exec(text) : null;
  if (withUnit) {
    const value = Number(withUnit[1]) * SECONDS_OF[withUnit[2]!.toLowerCase() as keyof typeof SECONDS_OF];
    return checkBounds(value, rule, fail);
  }
  const signed = rule.min === undefined && rule.above === undefined;
  if (typeof given === 'number' ? !Number.isFinite(given) : !(signed ? SIGNED_DECIMAL : DECIMAL).test(text)) fail();
  if (rule.integer && typeof given !== 'number' && !(signed ? SIGNED_WHOLE : WHOLE).test(text)) fail();
  const value = typeof given === 'number' ? given : Number(text);
  return checkBounds(value, rule, fail);
}

function checkBounds(value: number, rule: NumberRule, fail: () => never): number {
  // Past 2^53 a number is not what was typed (9007199254740993 reads as ...992): nothing here needs one.
  if (!(Math.abs(value) <= Number.MAX_SAFE_INTEGER)) fail();
  if (rule.integer && !Number.isInteger(value)) fail();
  if (rule.min !== undefined && value < rule.min) fail();
  if (rule.above !== undefined && value <= rule.above) fail();
  if (rule.max !== undefined && value > rule.max) fail();
  return value;
}

/** The numeric options with a default, by name: yargs gives such an option typed without a value its default. */
const DEFAULTED = new Map<string, NumberRule>();

/**
 * Throws UsageError for a numeric option with a default typed without a value (`--concurrency`
 * last on the line, or before another option): yargs quietly takes the default. `argv` as typed.
 */
export function checkNumberValuesGiven(argv: readonly string[]): void {
  const end = argv.indexOf('--'); // what follows is not an option
  const words = end === -1 ? argv : argv.slice(0, end);
  for (const [i, word] of words.entries()) {
    const name = /^--([^=]+)$/.exec(word)?.[1];
    const rule = name === undefined ? undefined : DEFAULTED.get(name);
    if (rule === undefined) continue;
    const next = words[i + 1];
    // A value may be negative (`-1`) where the rule lets it; any other word with a dash is an option.
    if (next === undefined || (next.startsWith('-') && !/^-\.?\d/.test(next))) {
      throw new UsageError(`invalid --${name}: no value given; expected ${describeRule(rule)}`);
    }
  }
}

/**
 * A yargs option for a number checked by `rule`. `default` is shown in the help and goes
 * through the same parse.
 */
export function numberOption(
  name: string,
  rule: NumberRule,
  spec: { describe: string; default: number },
): { describe: string; default: number; coerce: (raw: unknown) => number };
export function numberOption(
  name: string,
  rule: NumberRule,
  spec: { describe: string },
): { describe: string; coerce: (raw: unknown) => number };
export function numberOption(name: string, rule: NumberRule, spec: { describe: string; default?: number }) {
  if (spec.default !== undefined) DEFAULTED.set(name, rule);
  return {
    // No yargs type: `number` would turn 'abc' into NaN before the check sees it, and
    // `string` would show as [string] in the help. Digits arrive as numbers, the rest as typed.
    describe: spec.describe,
    ...(spec.default === undefined ? {} : { default: spec.default }),
    coerce: (raw: unknown): number => parseNumberOption(name, raw, rule),
  };
}
