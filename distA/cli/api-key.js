/** Reading the API key: from --api-key / DOCPIPE_API_KEY, or a file. Never echoed anywhere. */
import { readFileSync } from 'node:fs';
import { apiKeyProblem } from '../api/http-client.js';
import { projectIdProblem } from '../core/domain.js';
import { UsageError } from '../core/errors.js';
export function resolveApiKey(args) {
    const key = findApiKey(args);
    // Checked before any request (or database write): a key that cannot go in a header.
    const problem = apiKeyProblem(key);
    if (problem)
        throw new UsageError(`${problem}: check ${args.apiKeyFile && !args.apiKey ? `--api-key-file '${args.apiKeyFile}'` : 'DOCPIPE_API_KEY'}`);
    return key;
}
function findApiKey(args) {
    // Given twice (flag and env, or two flags), the last one wins.
    const given = Array.isArray(args.apiKey) ? args.apiKey.at(-1) : args.apiKey;
    if (typeof given === 'string' && given.trim())
        return given.trim();
    if (args.apiKeyFile) {
        try {
            const key = readFileSync(args.apiKeyFile, 'utf8').trim();
            if (key)
                return key;
        }
        catch (error) {
            throw new UsageError(`cannot read --api-key-file '${args.apiKeyFile}'`, { cause: error });
        }
        throw new UsageError(`--api-key-file '${args.apiKeyFile}' is empty`);
    }
    throw new UsageError('no API key: set DOCPIPE_API_KEY (or --api-key-file)');
}
/** The projects named by `--project` (repeatable, or comma-separated) or DOCPIPE_PROJECT. */
export function projectsOf(args) {
    const projects = (args.project ?? []).flatMap((p) => String(p).split(',')).map((p) => p.trim()).filter((p) => p !== '');
    for (const id of projects) {
        const problem = projectIdProblem(id);
        if (problem)
            throw new UsageError(`invalid --project '${id}': ${problem}`);
    }
    return [...new Set(projects)];
}
export function requireProjects(args) {
    const projects = projectsOf(args);
    if (projects.length === 0)
        throw new UsageError('no project: pass --project ID (or set DOCPIPE_PROJECT)');
    return projects;
}
//# sourceMappingURL=api-key.js.map