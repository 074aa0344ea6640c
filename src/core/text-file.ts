/**
 * Text files as several layers read them (prompt files, message files, SQL files): strict
 * UTF-8, and messages that name a file's line without breaking the line they are on.
 */
import { UsageError } from './errors.js';

/** A file's bytes as UTF-8 text (a leading BOM dropped); bytes that are not UTF-8 are a UsageError naming the line. */
export function decodeUtf8(path: string, bytes: Uint8Array, crEndsLine = false): string {
  try {
    // The default (ignoreBOM: false) drops a leading BOM.
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (cause) {
    const utf16 = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
    const reason = utf16 ? 'is UTF-16, not UTF-8' : 'is not valid UTF-8';
    throw new UsageError(`${fileLine(path, firstInvalidLine(bytes, crEndsLine))}: ${reason} (save the file as UTF-8)`, { cause });
  }
}

/**
 * The line of the first invalid byte. A line ends at LF (and CRLF), and with `crEndsLine` at
 * a lone CR too (as a .txt prompt file's reader does); neither byte occurs inside a UTF-8 sequence, so lines
 * decode alone.
 */
function firstInvalidLine(bytes: Uint8Array, crEndsLine: boolean): number {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let line = 1;
  let start = 0;
  for (let at = 0; at <= bytes.length; at++) {
    const b = bytes[at];
    const lineEnd = b === 0x0a || (crEndsLine && b === 0x0d);
    if (at < bytes.length && !lineEnd) continue;
    try {
      decoder.decode(bytes.subarray(start, at));
    } catch {
      return line;
    }
    if (b === 0x0d && bytes[at + 1] === 0x0a) at++; // CRLF is one line break
    start = at + 1;
    line++;
  }
  return line;
}

/** `path:line`, with control characters in the path escaped so the message stays on one line. */
export function fileLine(path: string, line?: number): string {
  const safe = path.replace(/[\p{Cc}\u2028\u2029]/gu, (c) => escapeChar(c));
  return line === undefined ? safe : `${safe}:${line}`;
}

/** A control character as an escape (`\n`, `\u0007`), so that a message stays on one line. */
export function escapeChar(c: string): string {
  if (c === '\n') return '\\n';
  if (c === '\r') return '\\r';
  if (c === '\t') return '\\t';
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** A surrogate without its pair (global: for `replace`; `test` needs lastIndex reset, as isWellFormed does). */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Whether a string is well-formed UTF-16: no surrogate without its pair. JSON may spell one
 * (`"\ud800"`), but it is no character: DuckDB stores it as U+FFFD, so a text that holds one
 * never reads back as it was written (a prompt's key would never match its ledger row).
 */
export function isWellFormed(text: string): boolean {
  LONE_SURROGATE.lastIndex = 0;
  return !LONE_SURROGATE.test(text);
}
