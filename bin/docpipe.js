#!/usr/bin/env node
// A stop signal that comes while the CLI's modules load (a few hundred ms) is kept and handed
// to the CLI, which then stops as it would have: its summary, exit 130. Without this, the
// signal's default action ended the process with no summary (143 for SIGTERM).
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const early = [];
const keep = (signal) => void early.push(signal);
for (const signal of STOP_SIGNALS) process.on(signal, keep);
const { runCli } = await import('../dist/cli/main.js');
for (const signal of STOP_SIGNALS) process.removeListener(signal, keep);

process.exitCode = await runCli(process.argv.slice(2), { signals: early });
