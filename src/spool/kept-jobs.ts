/**
 * Jobs the API created that the ledger could not take: a batch whose database stays held past
 * the lock wait cannot record the answer of a POST that created a job. It keeps the answer in
 * the spool instead, `<spool>/created/<project>/<prompt key>.json`, and the next batch (before
 * it decides anything) writes it into `agent_jobs`, where the prompt would otherwise be taken
 * for cut off while submitting (`unknown`) and its job never followed.
 */
import { mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentJob } from '../api/schemas.js';
import { encodeSegment, writeFileAtomic } from './spool.js';

export interface KeptJob {
  projectId: string;
  promptKey: string;
  job: AgentJob;
  /** When the answer came (ms). */
  at: number;
}

function createdDir(root: string, projectId?: string): string {
  return projectId === undefined ? join(root, 'created') : join(root, 'created', encodeSegment(projectId));
}

/** Keeps a created job's answer for the next batch (whole or not at all). */
export function keepCreatedJob(root: string, kept: KeptJob): string {
  const dir = createdDir(root, kept.projectId);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${encodeSegment(kept.promptKey)}.json`);
  writeFileAtomic(file, JSON.stringify(kept));
  return file;
}

/** The answers kept for a project, each with its file (one that does not parse is left for later). */
export function readCreatedJobs(root: string, projectId: string): { kept: KeptJob; file: string }[] {
  const dir = createdDir(root, projectId);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const found: { kept: KeptJob; file: string }[] = [];
  for (const name of names) {
    if (!name.endsWith('.json')) continue;
    const file = join(dir, name);
    try {
      const kept = JSON.parse(readFileSync(file, 'utf8')) as KeptJob;
      if (kept.projectId === projectId && typeof kept.promptKey === 'string' && typeof kept.at === 'number' && kept.job) found.push({ kept, file });
    } catch {
      // being written (the rename makes it whole) or torn: left for later
    }
  }
  return found;
}

/** Every kept answer, of every project (doctor and status name them). */
export function readAllCreatedJobs(root: string): KeptJob[] {
  let projects: string[];
  try {
    projects = readdirSync(createdDir(root));
  } catch {
    return [];
  }
  return projects.flatMap((folder) => readCreatedJobs(root, decodeURIComponent(folder)).map((k) => k.kept));
}

/** Removes a kept answer (it is in the ledger now). */
export function dropCreatedJob(file: string): void {
  rmSync(file, { force: true });
}
