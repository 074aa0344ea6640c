/**
 * `npm start`: the offline demo. Starts the sandbox on a free loopback port, exports the last
 * 30 days of visitors and views of a demo project into data/demo.duckdb through the real CLI,
 * and the last 4 ISO weeks, shows the top pages with SQL, submits data/prompts.example.txt as
 * agent jobs and shows their outcomes, turns the newest day's top pages into agent jobs with
 * `jobs from-query`, then writes the HTML report (data/report.html) and prints its path. Run
 * it twice: the second run makes no analytics request and submits nothing.
 */
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runCli } from '../cli/main.js';
import { addDays, utcToday } from '../extract/windows.js';
import { SANDBOX_API_KEY, startSandbox } from '../sandbox/server.js';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
process.chdir(ROOT);
const PROJECT = 'demo-docs';
const DB = 'data/demo.duckdb';
const REPORT = 'data/report.html';
function heading(text) {
    process.stdout.write(`\n== ${text}\n`);
}
async function step(argv) {
    process.stdout.write(`$ docpipe ${argv.join(' ')}\n`);
    const code = await runCli(argv);
    if (code !== 0 && code !== 75) {
        process.stdout.write(`(exit ${code})\n`);
        process.exitCode = code;
    }
}
// Without the API's hourly limits: the demo makes ~70 analytics requests a run, and runs twice.
const sandbox = await startSandbox({ port: 0, rateLimits: false });
// The key lives in the environment, as it should in production; it is never printed.
process.env.DOCPIPE_API_KEY = SANDBOX_API_KEY;
process.env.DOCPIPE_BASE_URL = sandbox.url;
process.env.DOCPIPE_PROJECT = PROJECT;
process.env.DOCPIPE_DB = DB;
// The local sandbox has no real budget; the real API allows 100 analytics requests an hour.
process.env.DOCPIPE_REQUESTS_PER_HOUR = '5000';
// Human-readable output for the demo, wherever it runs; cron runs default to JSON.
process.env.DOCPIPE_LOG_FORMAT ??= 'text';
try {
    const to = utcToday(Date.now());
    const from = addDays(to, -30);
    heading(`docpipe demo against the local sandbox at ${sandbox.url} (database ${DB})`);
    heading('1. Daily unique visitors and page views for the last 30 days');
    await step(['export', 'visitors', '--from', from, '--to', to]);
    await step(['export', 'views', '--from', from, '--to', to]);
    heading('2. Unique visitors over the whole 30 days (one window: uniques do not add up across days)');
    await step(['export', 'visitors', '--from', from, '--to', to, '--window', 'range']);
    heading('3. Weekly windows of the last 4 whole weeks, for week over week (a week\'s uniques come from the week itself)');
    await step(['export', 'visitors', '--last', '4w', '--window', 'week']);
    heading('4. Top 10 pages');
    await step(['query', '--file', 'sql/queries/top-pages.sql']);
    heading('5. A batch of agent jobs from data/prompts.example.txt');
    await step(['jobs', 'submit', 'data/prompts.example.txt', '--poll-interval', '0.2', '--results', 'data/demo-results.jsonl']);
    heading('6. Prompts from the analytics: the top 3 pages of the newest day, one agent job each');
    await step([
        'jobs', 'from-query',
        "SELECT path, total, window_start FROM page_visitors WHERE window_end - window_start = 1 AND window_start = (SELECT max(window_start) FROM page_visitors WHERE window_end - window_start = 1) ORDER BY total DESC, path LIMIT 3",
        '--template', 'Review {path} ({total} unique visitors on {window_start}) for accuracy, and fix what is out of date.',
        '--poll-interval', '0.2',
    ]);
    heading('7. The HTML report (charts rendered to SVG, nothing fetched when it is opened)');
    await step(['report', '--out', REPORT]);
    heading('Done. Try: npx docpipe query --db data/demo.duckdb "SELECT * FROM daily_site ORDER BY day DESC LIMIT 7"');
    process.stdout.write(`   Open the report: ${pathToFileURL(resolve(REPORT)).href}\n`);
    process.stdout.write(`   ${sandbox.requests.length} requests reached the sandbox in this run; run npm start again and the analytics windows are skipped.\n`);
}
finally {
    await sandbox.close();
}
//# sourceMappingURL=demo.js.map