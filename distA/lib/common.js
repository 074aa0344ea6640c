/**
 * What every library entry point shares: where the API and the database are, the clock, the
 * logger and the interrupt signal. Public options are all optional but the key, each with a
 * documented default, and normalised once here.
 */
import { DEFAULT_BASE_URL } from '../api/http-client.js';
import { systemClock } from '../core/clock.js';
import { UsageError } from '../core/errors.js';
import { createLogger } from '../core/logger.js';
import { DEFAULT_DB_PATH, DEFAULT_LOCK_TIMEOUT_MS } from '../load/database.js';
/** A logger that drops everything: a library prints nothing unless asked. */
export const silentLogger = createLogger({ format: 'json', write: () => undefined });
export function resolveCommon(options, needsKey = true) {
    const apiKey = typeof options.apiKey === 'string' ? options.apiKey.trim() : '';
    if (needsKey && apiKey === '')
        throw new UsageError('no API key: pass apiKey (e.g. from DOCPIPE_API_KEY)');
    const lockTimeoutMs = options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
    if (!Number.isFinite(lockTimeoutMs) || lockTimeoutMs < 0) {
        throw new UsageError(`invalid lockTimeoutMs '${String(lockTimeoutMs)}': expected milliseconds >= 0`);
    }
    const max = options.maxRequests;
    if (max !== undefined && (!Number.isInteger(max) || max < 0)) {
        throw new UsageError(`invalid maxRequests '${String(max)}': expected a whole number >= 0`);
    }
    return {
        apiKey,
        baseUrl: options.baseUrl ?? DEFAULT_BASE_URL,
        workspace: { db: options.db ?? DEFAULT_DB_PATH, lockTimeout: lockTimeoutMs / 1000 },
        maxRequests: max,
        logger: options.logger ?? silentLogger,
        clock: options.clock ?? systemClock,
        signal: options.signal,
        http: options.http,
    };
}
/** A positive number option, named as the caller knows it (`--concurrency`, `concurrency`). */
export function positive(name, value, integer) {
    if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
        throw new UsageError(`invalid ${name} '${String(value)}': expected a ${integer ? 'whole ' : ''}number > 0`);
    }
    return value;
}
//# sourceMappingURL=common.js.map