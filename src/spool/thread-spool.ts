/**
 * Assistant thread bodies in the spool (`export assistant --threads`): `<spool>/threads/<project>/<id>.jsonl`,
 * each claimed (`<id>.claim` beside it) by the run that fetches it until it is loaded, so two
 * overlapping runs never fetch one thread both, and a body no live run holds is loaded by the
 * next run (or `doctor --fix`) without a request.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { decodedSegment, encodeSegment, isLiveOther, SpoolClaim, type Spool } from './spool.js';
import { namesIn } from '../core/files.js';
import type { ProcessRef } from '../core/process-identity.js';

export interface SpooledThread {
  projectId: string;
  threadId: string;
  file: string;
  /** This run's claim on the thread, held until its body is loaded. */
  claim: SpoolClaim;
}

export function threadsDir(spool: Spool, projectId: string): string {
  return join(spool.root, 'threads', encodeSegment(projectId));
}

/** A thread's claim (`<id>.claim` beside its body): two overlapping runs never fetch one thread both. */
export const claimOf = (spool: Spool, file: string): SpoolClaim => new SpoolClaim(`${file.slice(0, -'.jsonl'.length)}.claim`, spool.root);

export interface ThreadScan {
  /** Bodies an earlier run received but did not load, now claimed by this run. */
  mine: SpooledThread[];
  /** Every thread with a body in the spool (another live run's too), by project. */
  spooled: Map<string, Set<string>>;
  /** Another run holds a thread: runs overlap. */
  othersActive: boolean;
}

/**
 * The thread bodies in the spool: those no live run holds are claimed by this one, to load;
 * a claim with no body that no live run holds (its fetch never ended) is removed.
 */
export function scanThreads(spool: Spool, projects: readonly string[]): ThreadScan {
  const scan: ThreadScan = { mine: [], spooled: new Map(), othersActive: false };
  for (const projectId of projects) {
    const dir = threadsDir(spool, projectId);
    const names = namesIn(dir);
    const bodies = new Set(names.filter((n) => n.endsWith('.jsonl')));
    const spooled = new Set<string>();
    scan.spooled.set(projectId, spooled);
    for (const name of names) {
      if (name.endsWith('.claim')) {
        const body = `${name.slice(0, -'.claim'.length)}.jsonl`;
        if (bodies.has(body)) continue; // taken up with its body
        // No body: a fetch in flight (another run at work), or one that never ended, whose
        // claim is taken over (so that no run taking it meanwhile loses it) and dropped.
        const claim = claimOf(spool, join(dir, body));
        if (claim.take()) claim.remove();
        else scan.othersActive = true;
        continue;
      }
      if (!name.endsWith('.jsonl')) continue;
      const file = join(dir, name);
      const threadId = decodedSegment(name.slice(0, -'.jsonl'.length));
      if (threadId === undefined) continue;
      spooled.add(threadId);
      const claim = claimOf(spool, file);
      if (claim.take()) scan.mine.push({ projectId, threadId, file, claim });
      else scan.othersActive = true;
    }
  }
  return scan;
}

/** A thread body in the spool, as `doctor` and `status` see it (reading changes nothing). */
export interface SpooledThreadFacts {
  projectId: string;
  threadId: string;
  /** A live run holds its claim: that run loads it. */
  held: boolean;
}

/** The projects with a threads folder in the spool (decoded). */
export function threadProjects(spool: Spool): string[] {
  try {
    return readdirSync(join(spool.root, 'threads'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .flatMap((d) => decodedSegment(d.name) ?? []);
  } catch {
    return [];
  }
}

/** Every thread body in the spool, and whether a live run holds it; claims are read, not taken. */
export function surveyThreads(spool: Spool): SpooledThreadFacts[] {
  const found: SpooledThreadFacts[] = [];
  for (const projectId of threadProjects(spool)) {
    const dir = threadsDir(spool, projectId);
    for (const name of namesIn(dir)) {
      if (!name.endsWith('.jsonl')) continue;
      const base = name.slice(0, -'.jsonl'.length);
      let holder: ProcessRef | null;
      try {
        holder = (JSON.parse(readFileSync(join(dir, `${base}.claim`), 'utf8')) as { owner?: ProcessRef }).owner ?? null;
      } catch {
        holder = null; // no claim, or one being written
      }
      const threadId = decodedSegment(base);
      if (threadId !== undefined) found.push({ projectId, threadId, held: isLiveOther(holder, spool.root) });
    }
  }
  return found;
}
