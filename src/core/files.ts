/** Small questions about the file system that several layers ask. */
import { accessSync, constants, existsSync, fstatSync, ftruncateSync, lstatSync, mkdirSync, readdirSync, statSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The names in folder `dir` (with `recursive`, every path under it); none if it cannot be read (not there, not a folder). */
export function namesIn(dir: string, options: { recursive?: boolean } = {}): string[] {
  try {
    return readdirSync(dir, { encoding: 'utf8', recursive: options.recursive ?? false });
  } catch {
    return [];
  }
}

/**
 * The name under which a process writes a file before it moves or links it into place
 * (whole or not at all): beside it, with the writer's pid.
 */
export const tempPathOf = (path: string, pid = process.pid): string => `${path}.${pid}.tmp`;
/** A name tempPathOf made (with DuckDB's `.wal` beside a database made so): the file it was for, and the pid. */
const TEMP_PATH = /^(.+)\.(\d+)\.tmp(?:\.wal)?$/;

/** A copy tempPathOf named: its path as listed under the folder, the file it was for, its writer's pid, when last written (ms), and which file it is (device and inode: a copy linked into place is that file). */
export interface TempFile {
  path: string;
  of: string;
  pid: number;
  writtenAt: number;
  dev: number;
  ino: number;
}

/**
 * The copies tempPathOf named in folder `dir` (with `recursive`, anywhere under it): a process
 * killed between writing one and moving it into place leaves it behind.
 */
export function tempFiles(dir: string, options: { recursive?: boolean } = {}): TempFile[] {
  return namesIn(dir, options).flatMap((name): TempFile[] => {
    const [, of, pid] = TEMP_PATH.exec(name) ?? [];
    if (of === undefined || pid === undefined) return [];
    const stat = statSync(join(dir, name), { throwIfNoEntry: false });
    return stat?.isFile() ? [{ path: name, of, pid: Number(pid), writtenAt: stat.mtimeMs, dev: stat.dev, ino: stat.ino }] : [];
  });
}

/** Whether this process may write `path` (a file, or a folder to make files in). */
export function canWrite(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * `mkdir -p`: makes `path` and the folders above it that are missing. Node's own
 * (`mkdirSync(path, { recursive: true })`) spins for ever where a folder exists but making one
 * in it answers ENOENT (`/proc`); this one throws that error.
 */
export function makeFolders(path: string): void {
  if (isFolder(path)) return;
  // A file where the folder goes: as mkdir -p says it (a folder another process made since the
  // look above is made).
  if (existsSync(path) && !isFolder(path)) throw Object.assign(new Error(`EEXIST: file already exists, mkdir '${path}'`), { code: 'EEXIST', syscall: 'mkdir', path });
  // The path as given, `..` and symbolic links read by the system as it makes each folder
  // (as mkdir -p does): `link/../x` is made beside the link's target.
  const missing: string[] = [];
  for (let at = path; !existsSync(at); at = dirname(at)) {
    missing.push(at);
    if (dirname(at) === at) break;
  }
  for (const folder of missing.reverse()) {
    try {
      mkdirSync(folder);
    } catch (error) {
      // Made meanwhile by another process is made; a file there (or a symbolic link that
      // leads nowhere) is not a folder, and its error is the one thrown.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !isFolder(folder)) throw error;
    }
  }
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Whether `path` is a symbolic link (one that leads nowhere included). */
export function isSymbolicLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * Appends `text` to the file open (for appending) at `fd`, whole or not at all: a write the
 * disk cuts short (full, over quota, past a size limit) is taken back, and its error thrown,
 * so that what follows in the file never starts inside a torn line and no caller goes on as
 * if the text were on disk. Returns the bytes written.
 */
export function appendWholeSync(fd: number, text: string): number {
  // The usual case, one write of the string (no Buffer made: measured 11-24 ms less for 2,160
  // pages of 15 KB); a write that throws has written nothing.
  const length = Buffer.byteLength(text, 'utf8');
  let done = writeSync(fd, text);
  if (done === length) return done;
  // Cut short: where the text began (the file's size now, less what went in), and the rest.
  const start = fstatSync(fd).size - done;
  const bytes = Buffer.from(text, 'utf8');
  try {
    while (done < length) {
      const written = writeSync(fd, bytes, done, length - done);
      if (written <= 0) throw Object.assign(new Error('ENOSPC: no space left on device, write (no byte written)'), { code: 'ENOSPC', syscall: 'write' });
      done += written;
    }
  } catch (error) {
    try {
      // Only if no one appended after it: never cut another writer's bytes.
      if (fstatSync(fd).size === start + done) ftruncateSync(fd, start);
    } catch {
      // The torn tail stays; readers of these files cut a torn last line off.
    }
    throw error;
  }
  return done;
}
