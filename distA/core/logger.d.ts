export declare const LOG_FORMATS: readonly ["text", "json"];
export type LogFormat = (typeof LOG_FORMATS)[number];
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;
export interface Logger {
    readonly format: LogFormat;
    debug(event: string, fields?: LogFields): void;
    info(event: string, fields?: LogFields): void;
    warn(event: string, fields?: LogFields): void;
    error(event: string, fields?: LogFields): void;
}
export interface LoggerOptions {
    format: LogFormat;
    /** @default process.stderr.write */
    write?: (line: string) => void;
    /** Print debug lines. @default false */
    verbose?: boolean;
    /** @default () => new Date() */
    now?: () => Date;
}
export declare function defaultLogFormat(stream?: {
    isTTY?: boolean;
}): LogFormat;
export declare function createLogger(options: LoggerOptions): Logger;
