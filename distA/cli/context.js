/**
 * Declares a command whose handler gets the arguments its builder declares, plus the global
 * options (yargs types the handler's argument loosely; this is the one place that narrows it).
 */
export function defineCommand(spec) {
    return {
        command: spec.command,
        describe: spec.describe,
        builder: spec.builder,
        handler: (raw) => spec.handler(raw),
    };
}
//# sourceMappingURL=context.js.map