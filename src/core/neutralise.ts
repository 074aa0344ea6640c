/**
 * Text from the API (paths, prompts, error bodies, statuses) is shown on terminals. Control
 * characters in it could move the cursor, recolour or retitle the terminal, or hide text
 * (ESC sequences, C1 controls such as CSI, bidirectional overrides), so tables and text logs
 * show them as visible escapes instead: `\x1b`, `\u202e` (a line break too, so a value cannot
 * forge a log line). JSON output escapes them as `\u` escapes (jsonSafe): JSON.stringify
 * escapes only U+0000-U+001F.
 */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function neutralise(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** The characters UNSAFE names that JSON.stringify leaves as they are (it escapes U+0000-U+001F). */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON text (from JSON.stringify) with every terminal-unsafe character left in it written as a
 * `\u` escape: the same value to any JSON reader, nothing a terminal acts on. Such characters
 * can only stand inside strings of valid JSON, so the whole text can be rewritten at once.
 */
export function jsonSafe(json: string): string {
  return json.replace(UNSAFE_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A value as one line of terminal-safe JSON (jsonSafe), newline included: summaries, JSON logs. */
export function jsonLine(value: unknown): string {
  return `${jsonSafe(JSON.stringify(value))}\n`;
}
