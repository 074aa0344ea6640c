/**
 * Structured logging to stderr: one JSON object a line for cron and log shippers, or a short
 * human line on a terminal. Results (summaries, tables, query output) go to stdout instead,
 * through the command's own output, never through the logger.
 */
import { neutralise } from './neutralise.js';
export const LOG_FORMATS = ['text', 'json'];
export function defaultLogFormat(stream = process.stderr) {
    return stream.isTTY ? 'text' : 'json';
}
/** A terminal line: values from the API may carry escape sequences, shown as escapes instead. */
function formatText(level, event, fields) {
    const parts = Object.entries(fields)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => `${k}=${neutralise(typeof v === 'string' ? v : JSON.stringify(v))}`);
    const prefix = level === 'info' ? '' : `${level}: `;
    return `${prefix}${neutralise(event)}${parts.length > 0 ? ' ' + parts.join(' ') : ''}`;
}
export function createLogger(options) {
    const write = options.write ?? ((line) => void process.stderr.write(line));
    const now = options.now ?? (() => new Date());
    const emit = (level, event, fields = {}) => {
        if (level === 'debug' && !options.verbose)
            return;
        const line = options.format === 'json'
            ? JSON.stringify({ ts: now().toISOString(), level, event, ...fields })
            : formatText(level, event, fields);
        write(line + '\n');
    };
    return {
        format: options.format,
        debug: (e, f) => emit('debug', e, f),
        info: (e, f) => emit('info', e, f),
        warn: (e, f) => emit('warn', e, f),
        error: (e, f) => emit('error', e, f),
    };
}
//# sourceMappingURL=logger.js.map