/**
 * Text from the API (paths, prompts, error bodies, statuses) is shown on terminals. Control
 * characters in it could move the cursor, recolour or retitle the terminal, or hide text
 * (ESC sequences, C1 controls such as CSI, bidirectional overrides), so tables and text logs
 * show them as visible escapes instead: `\x1b`, `\u202e` (a line break too, so a value cannot
 * forge a log line). JSON output escapes them itself.
 */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
export function neutralise(text) {
    return text.replace(UNSAFE, (c) => {
        const code = c.charCodeAt(0);
        return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
    });
}
//# sourceMappingURL=neutralise.js.map