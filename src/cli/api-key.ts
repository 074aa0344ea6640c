/** Reading the API key: from --api-key / DOCPIPE_API_KEY, or a file. Never echoed anywhere. */
import { readFileSync } from 'node:fs';
import { apiKeyProblem, looksLikeKey } from '../api/http-client.js';
import { projectIdProblem, shownProjectId } from '../core/domain.js';
import { UsageError } from '../core/errors.js';
import type { GlobalArgs } from './io.js';

export function resolveApiKey(args: Pick<GlobalArgs, 'apiKey' | 'apiKeyFile'>): string {
  const key = apiKeyIfGiven(args);
  if (key === '') throw new UsageError('no API key: set DOCPIPE_API_KEY (or --api-key-file)');
  return key;
}

/**
 * The key if one is given (checked as the run checks it: a key given twice, or a key file that
 * cannot be read, is the same usage error), else '': a dry run needs none (it makes no
 * request), but refuses what the run would refuse, a prompt that holds it.
 */
export function apiKeyIfGiven(args: Pick<GlobalArgs, 'apiKey' | 'apiKeyFile'>): string {
  const found = findApiKey(args);
  if (found === undefined) return '';
  // Checked before any request (or database write): a key that cannot go in a header.
  const problem = apiKeyProblem(found.key);
  if (problem) throw new UsageError(`${problem}: check ${found.source}`);
  return found.key;
}

/** Where the key came from, as an error about it names it: `--api-key`, DOCPIPE_API_KEY or `--api-key-file 'path'`. */
export function apiKeySource(args: Pick<GlobalArgs, 'apiKey' | 'apiKeyFile'>): string {
  try {
    return findApiKey(args)?.source ?? 'DOCPIPE_API_KEY';
  } catch {
    return 'DOCPIPE_API_KEY';
  }
}

/** The key given and where it came from; undefined when none is given. */
function findApiKey(args: Pick<GlobalArgs, 'apiKey' | 'apiKeyFile'>): { key: string; source: string } | undefined {
  const found = findApiKeyText(args);
  if (found === undefined) return undefined;
  const fromEnv = found.source === 'value' && found.key === process.env.DOCPIPE_API_KEY?.trim();
  return { key: found.key, source: found.source === 'file' ? `--api-key-file '${args.apiKeyFile}'` : fromEnv ? 'DOCPIPE_API_KEY' : '--api-key' };
}

function findApiKeyText(args: Pick<GlobalArgs, 'apiKey' | 'apiKeyFile'>): { key: string; source: 'value' | 'file' } | undefined {
  // Given twice (flag and env, or two flags), the last one wins.
  const given: unknown = Array.isArray(args.apiKey) ? args.apiKey.at(-1) : args.apiKey;
  // The command line beats the environment, as for every option: an --api-key-file typed
  // there wins over a DOCPIPE_API_KEY the environment holds (a cron's, a shell's).
  const keyFromEnv = given === process.env.DOCPIPE_API_KEY;
  const fileTyped = args.apiKeyFile !== undefined && args.apiKeyFile !== process.env.DOCPIPE_API_KEY_FILE;
  // Both typed: which one was meant cannot be known (neither value is echoed).
  if (fileTyped && typeof given === 'string' && !keyFromEnv) throw new UsageError('--api-key and --api-key-file are both given: keep one');
  const fileFirst = keyFromEnv && fileTyped;
  if (!fileFirst && typeof given === 'string' && given.trim()) return { key: given.trim(), source: 'value' };
  if (args.apiKeyFile) {
    // A key given as the file by mistake (DOCPIPE_API_KEY_FILE=$(cat key)) is not echoed.
    const named = looksLikeKey(args.apiKeyFile) ? 'given (it looks like a key itself: set DOCPIPE_API_KEY to it instead)' : `'${args.apiKeyFile}'`;
    try {
      const key = readFileSync(args.apiKeyFile, 'utf8').trim();
      if (key) return { key, source: 'file' };
    } catch (error) {
      throw new UsageError(`cannot read --api-key-file ${named}`, { cause: error });
    }
    throw new UsageError(`--api-key-file ${named} is empty`);
  }
  return undefined;
}

/** The projects named by `--project` (repeatable, or comma-separated) or DOCPIPE_PROJECT. */
export function projectsOf(args: Pick<GlobalArgs, 'project'>): string[] {
  const given: unknown[] = args.project === undefined ? [] : Array.isArray(args.project) ? args.project : [args.project];
  // `--no-project` (or `--project` read as a flag) is no project id: not the project 'false'.
  const notText = given.find((p) => typeof p !== 'string' && typeof p !== 'number');
  if (notText !== undefined) throw new UsageError(`invalid --project '${String(notText)}': expected a project id (pass --project ID)`);
  const projects = given.flatMap((p) => String(p).split(',')).map((p) => p.trim()).filter((p) => p !== '');
  for (const id of projects) {
    const problem = projectIdProblem(id);
    if (problem) throw new UsageError(`invalid --project '${shownProjectId(id)}': ${problem}`);
  }
  return [...new Set(projects)];
}

export function requireProjects(args: Pick<GlobalArgs, 'project'>): string[] {
  const projects = projectsOf(args);
  if (projects.length === 0) throw new UsageError('no project: pass --project ID (or set DOCPIPE_PROJECT)');
  return projects;
}
