/** What a command may touch of the process: output streams, environment, clock, interrupt. */
import { systemClock } from '../core/clock.js';
import { createLogger, defaultLogFormat } from '../core/logger.js';
export function processIo(signal) {
    return {
        stdout: (text) => void process.stdout.write(text),
        stderr: (text) => void process.stderr.write(text),
        isTTY: Boolean(process.stderr.isTTY),
        clock: systemClock,
        ...(signal ? { signal } : {}),
    };
}
export function loggerFor(io, args) {
    const format = args.logFormat ?? defaultLogFormat({ isTTY: io.isTTY });
    return createLogger({ format, write: io.stderr, verbose: args.verbose, now: () => new Date(io.clock.now()) });
}
//# sourceMappingURL=io.js.map