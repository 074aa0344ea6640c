/** The options every command takes (declared once, in main.ts). */
export const GLOBAL_OPTIONS = [
    'api-key',
    'api-key-file',
    'base-url',
    'project',
    'db',
    'log-format',
    'requests-per-hour',
    'max-requests',
    'lock-timeout',
    'verbose',
];
/** Pure: the environment variable an option is read from, e.g. `--max-requests` → DOCPIPE_MAX_REQUESTS. */
export function envName(option) {
    return `DOCPIPE_${option.toUpperCase().replace(/-/g, '_')}`;
}
/** Pure: an option's help text with the variable it is also read from. */
export function withEnv(option, describe) {
    return `${describe} [env ${envName(option)}]`;
}
/**
 * Ends a command's builder: groups its own options under "Options:" ahead of "Global
 * options:", and adds its examples and epilogue.
 */
export function commandHelp(yargs, help) {
    const globals = new Set(GLOBAL_OPTIONS);
    // Both exist on every yargs instance; @types/yargs does not declare them.
    const inner = yargs;
    const grouped = new Set(Object.values(inner.getGroups()).flat());
    // yargs also knows the camelCase twin of each kebab-case option; the help shows one.
    const own = Object.keys(inner.getOptions().key).filter((key) => !globals.has(key) && !grouped.has(key) && key !== 'help' && key !== 'version' && !/[A-Z]/.test(key));
    // yargs prints groups in the order they were made: own options first.
    let result = yargs.group([...own, 'help'], 'Options:').group([...GLOBAL_OPTIONS], 'Global options:');
    for (const [line, what] of help.examples)
        result = result.example(`docpipe ${line}`, what);
    if (help.epilogue)
        result = result.epilogue(help.epilogue);
    return result;
}
//# sourceMappingURL=help.js.map