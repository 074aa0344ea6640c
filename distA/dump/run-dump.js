/**
 * Writes the dump: each table is copied by DuckDB into a staging folder inside the output
 * folder, then the partitions in scope are swapped in (old ones removed, new ones renamed into
 * place), so the lake holds each row once however often the dump runs.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { DUMP_TABLES, copySql, selectSql, inScope, parsePartitionDir } from './plan-dump.js';
function subdirs(dir) {
    if (!existsSync(dir))
        return [];
    return readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name);
}
/** Every `project_id=/year=/month=` folder under a table folder. */
function listPartitions(tableDir) {
    const found = [];
    for (const p of subdirs(tableDir)) {
        const projectId = parsePartitionDir(p, 'project_id');
        if (projectId === undefined)
            continue;
        for (const y of subdirs(join(tableDir, p))) {
            const year = Number(parsePartitionDir(y, 'year'));
            for (const m of subdirs(join(tableDir, p, y))) {
                const month = Number(parsePartitionDir(m, 'month'));
                if (Number.isInteger(year) && Number.isInteger(month))
                    found.push({ projectId, year, month, dir: join(p, y, m) });
            }
        }
    }
    return found;
}
/** Removes folders left empty under `root` (deepest first), keeping `root`. */
function pruneEmpty(root, dir = root) {
    for (const name of subdirs(dir))
        pruneEmpty(root, join(dir, name));
    if (dir !== root && readdirSync(dir).length === 0)
        rmdirSync(dir);
}
export async function runDump(db, options) {
    const staging = join(options.out, `.docpipe-staging-${options.runId}`);
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    const results = [];
    try {
        for (const table of DUMP_TABLES) {
            const stagedDir = join(staging, table.name);
            const [counted] = await db.all(`SELECT count(*) AS n FROM (${selectSql(table, options.filter)})`);
            const rows = Number(counted?.n ?? 0);
            if (rows > 0)
                await db.run(copySql(table, options.filter, stagedDir, options.format));
            const tableDir = join(options.out, table.name);
            for (const old of listPartitions(tableDir)) {
                if (inScope(old, options.filter))
                    rmSync(join(tableDir, old.dir), { recursive: true, force: true });
            }
            const staged = listPartitions(stagedDir);
            for (const part of staged) {
                mkdirSync(join(tableDir, part.dir, '..'), { recursive: true });
                renameSync(join(stagedDir, part.dir), join(tableDir, part.dir));
            }
            if (existsSync(tableDir))
                pruneEmpty(tableDir);
            results.push({ table: table.name, rows, partitions: staged.length });
        }
    }
    finally {
        rmSync(staging, { recursive: true, force: true });
    }
    return results;
}
//# sourceMappingURL=run-dump.js.map