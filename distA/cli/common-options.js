export function commonOf(ctx, args, apiKey, logger) {
    return {
        apiKey,
        baseUrl: args.baseUrl,
        db: args.db,
        lockTimeoutMs: args.lockTimeout * 1000,
        ...(args.maxRequests === undefined ? {} : { maxRequests: args.maxRequests }),
        logger,
        clock: ctx.io.clock,
        ...(ctx.http ? { http: ctx.http } : {}),
        ...(ctx.io.signal ? { signal: ctx.io.signal } : {}),
    };
}
//# sourceMappingURL=common-options.js.map