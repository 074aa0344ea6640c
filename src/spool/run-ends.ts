/**
 * Run ends the database could not take: a run that stops because another process held the
 * file past the lock wait cannot record its end either. It keeps it in the spool instead,
 * `<spool>/ends/<runId>.json`, and the next run that records its own start (or `doctor
 * --fix`) writes it into `runs`, where the run would otherwise be taken for crashed.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { encodeSegment, writeFileAtomic } from './spool.js';
import { makeFolders, namesIn } from '../core/files.js';

export interface RunEnd {
  status: string;
  exitCode: number;
  summary: unknown;
  /** When the run ended (ms). */
  finishedAt: number;
}

function endsDir(root: string): string {
  return join(root, 'ends');
}

/** Keeps a run's end for the next write (whole or not at all). */
export function keepRunEnd(root: string, runId: string, end: RunEnd): string {
  makeFolders(endsDir(root));
  const file = join(endsDir(root), `${encodeSegment(runId)}.json`);
  writeFileAtomic(file, JSON.stringify(end));
  return file;
}

/** The run ends kept in the spool, by run id (a file that does not parse is skipped). */
export function readRunEnds(root: string): Map<string, RunEnd> {
  const ends = new Map<string, RunEnd>();
  for (const name of namesIn(endsDir(root))) {
    if (!name.endsWith('.json')) continue;
    try {
      const end = JSON.parse(readFileSync(join(endsDir(root), name), 'utf8')) as RunEnd;
      if (typeof end.status === 'string' && typeof end.exitCode === 'number' && typeof end.finishedAt === 'number') {
        ends.set(decodeURIComponent(name.slice(0, -'.json'.length)), end);
      }
    } catch {
      // being written (the rename makes it whole) or torn: left for later
    }
  }
  return ends;
}

/** Removes a kept run end (it is in `runs` now, or its run is no longer running). */
export function dropRunEnd(root: string, runId: string): void {
  rmSync(join(endsDir(root), `${encodeSegment(runId)}.json`), { force: true });
}
