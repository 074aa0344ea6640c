/**
 * Answers of POSTs the ledgers could not take: a batch whose database stays held past the lock
 * wait (or a process killed while it waits) cannot record what the API answered. It keeps the
 * answer in the spool first, and the next run of the project (before it decides anything)
 * writes it into the ledger, where the prompt or message would otherwise be taken for cut off
 * while posting (`unknown`) and its job never followed:
 * - `created/<project>/<prompt key>.json`: the job a prompt's POST created (`agent_jobs`);
 * - `sent/<project>/<message key>.json`: the job's answer to a follow-up message (`agent_messages`).
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentJob } from '../api/schemas.js';
import { decodedSegment, encodeSegment, writeFileAtomic } from './spool.js';
import { makeFolders, namesIn } from '../core/files.js';

/** `created`: a prompt's job; `sent`: a follow-up message's answer. */
export type KeptKind = 'created' | 'sent';

export interface KeptJob {
  projectId: string;
  /** The prompt's key (`created`) or the message's (`sent`). */
  key: string;
  job: AgentJob;
  /** When the answer came (ms). */
  at: number;
}

function keptDir(root: string, kind: KeptKind, projectId?: string): string {
  return projectId === undefined ? join(root, kind) : join(root, kind, encodeSegment(projectId));
}

/** Keeps an answer for the next run (whole or not at all); returns its file. */
export function keepJob(root: string, kind: KeptKind, kept: KeptJob): string {
  const dir = keptDir(root, kind, kept.projectId);
  makeFolders(dir);
  const file = join(dir, `${encodeSegment(kept.key)}.json`);
  writeFileAtomic(file, JSON.stringify(kept));
  return file;
}

/** The answers kept for a project, each with its file (one that does not parse is left for later). */
export function readKeptJobs(root: string, kind: KeptKind, projectId: string): { kept: KeptJob; file: string }[] {
  const dir = keptDir(root, kind, projectId);
  const found: { kept: KeptJob; file: string }[] = [];
  for (const name of namesIn(dir)) {
    if (!name.endsWith('.json')) continue;
    const file = join(dir, name);
    try {
      const kept = JSON.parse(readFileSync(file, 'utf8')) as KeptJob;
      if (kept.projectId === projectId && typeof kept.key === 'string' && typeof kept.at === 'number' && kept.job) found.push({ kept, file });
    } catch {
      // being written (the rename makes it whole) or torn: left for later
    }
  }
  return found;
}

/** Every kept answer of a kind, of every project (doctor and status name them). */
export function readAllKeptJobs(root: string, kind: KeptKind): KeptJob[] {
  return namesIn(keptDir(root, kind)).flatMap((folder) => {
    const projectId = decodedSegment(folder);
    return projectId === undefined ? [] : readKeptJobs(root, kind, projectId).map((k) => k.kept);
  });
}

/** Removes a kept answer (it is in the ledger now). */
export function dropKeptJob(file: string): void {
  rmSync(file, { force: true });
}

/**
 * Records an answer with `record`, the answer kept in the spool until that write has
 * committed: a run killed meanwhile, or one that gives up on a held file (`record` throws),
 * leaves it for the next run. Without a spool (`root` undefined), only records it.
 */
export async function recordKeeping(root: string | undefined, kind: KeptKind, kept: KeptJob, record: () => Promise<void>): Promise<void> {
  const file = root === undefined ? undefined : keepJob(root, kind, kept);
  await record();
  if (file !== undefined) dropKeptJob(file);
}

/**
 * Writes the answers an earlier run kept for a project, each with `record` (which says whether
 * it wrote it: a row that moved on meanwhile keeps what it has), then removes them. Returns the
 * answers recorded.
 */
export async function recoverKept(root: string | undefined, kind: KeptKind, projectId: string, record: (kept: KeptJob) => Promise<boolean>): Promise<KeptJob[]> {
  if (root === undefined) return [];
  const recorded: KeptJob[] = [];
  for (const { kept, file } of readKeptJobs(root, kind, projectId)) {
    if (await record(kept)) recorded.push(kept);
    dropKeptJob(file);
  }
  return recorded;
}
