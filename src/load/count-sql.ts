/**
 * Counts as SQL, for every loader: the API's counts arrive as JSON numbers (DOUBLE), which
 * may be non-integral, missing, infinite (`1e400`) or beyond what a BIGINT holds (`1e20`).
 * None of them may fail a load: a load that fails fails on every later run too, since the
 * walk stays in the spool.
 */

/** Whether a raw count (DOUBLE) fits a BIGINT: not NULL, finite and below 2^63 in size. */
export const fitsBigint = (x: string): string => `(abs(${x}) < 9223372036854775807::DOUBLE)`;

/** fitsBigint for a count in hand (the walk's totals): a number below 2^63 in size. */
export const countFits = (value: number | null): boolean => value !== null && Math.abs(value) < 2 ** 63;

/**
 * A count as stored: rounded half up, like the API's integers would be; NULL when it is
 * missing or no BIGINT can hold it (beyond 64 bits, infinite), so one such count never fails
 * the window's load.
 */
export const roundedCount = (x: string): string => `CASE WHEN ${fitsBigint(x)} THEN floor(${x} + 0.5)::BIGINT END`;

/** A count as a DOUBLE literal: NULL and infinities kept, for the SQL to flag. */
export function countLiteral(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return 'NULL::DOUBLE';
  if (!Number.isFinite(value)) return value > 0 ? `'inf'::DOUBLE` : `'-inf'::DOUBLE`;
  return `${value}::DOUBLE`;
}
