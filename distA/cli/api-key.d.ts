import type { GlobalArgs } from './io.js';
export declare function resolveApiKey(args: Pick<GlobalArgs, 'apiKey' | 'apiKeyFile'>): string;
/** The projects named by `--project` (repeatable, or comma-separated) or DOCPIPE_PROJECT. */
export declare function projectsOf(args: Pick<GlobalArgs, 'project'>): string[];
export declare function requireProjects(args: Pick<GlobalArgs, 'project'>): string[];
