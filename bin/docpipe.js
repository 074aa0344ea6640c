#!/usr/bin/env node
// A stop signal that comes while the CLI's modules load (a few hundred ms) is kept and handed
// to the CLI, which then stops as it would have: its summary, exit 130. Without this, the
// signal's default action ended the process with no summary (143 for SIGTERM). The listeners
// that keep them stay until the CLI's own are in place: a signal on its way while the process
// had no listener for it was dropped, and the run went on as if never stopped.
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const early = [];
const keep = (signal) => void early.push(signal);
for (const signal of STOP_SIGNALS) process.on(signal, keep);
const { runCli } = await import('../dist/cli/main.js');
const releaseSignals = () => {
  for (const signal of STOP_SIGNALS) process.removeListener(signal, keep);
};

process.exitCode = await runCli(process.argv.slice(2), { signals: early, releaseSignals });
