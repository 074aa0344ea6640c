export interface RateLimitOptions {
    /** Analytics requests an hour for the organization. @default 100 */
    analyticsPerHour?: number;
    /** Job creations and follow-up messages an hour, per project. @default 100 */
    agentWritesPerHour?: number;
}
/** Which limit a request falls under, if any: pure. */
export declare function rateLimitScope(method: string, parts: readonly (string | undefined)[]): {
    scope: string;
    kind: 'analytics' | 'agent';
} | undefined;
export declare class RateLimits {
    private readonly analyticsPerHour;
    private readonly agentWritesPerHour;
    private readonly seen;
    constructor(options?: RateLimitOptions);
    /**
     * Takes a slot for the request at `now`: 0 when it may go ahead, else the milliseconds
     * until a slot frees (the request is not counted).
     */
    take(method: string, parts: readonly (string | undefined)[], now: number): number;
}
