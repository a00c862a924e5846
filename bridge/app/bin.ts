#!/usr/bin/env node
/**
 * The installed `nvr2mqtt` command (package.json `bin`). A script's first line cannot portably pass node flags, so a
 * node started without heap flags starts the command again, once, with the daemon's (LAUNCH_HEAP_FLAGS, as the
 * container images and `npm start` give them): through `process.execve` where node has it (22.15 and later), which
 * keeps the process itself (pid, signals, stdin/stdout, exit code); else as a child process with the same stdio, in a
 * process group of its own (a terminal's Ctrl-C reaches it once, through here), sent every signal this process gets,
 * whose exit code (or signal) this process ends with. Heap flags of the user's own are left as given. Nothing but this
 * file and `tuning.ts` is loaded before: the parent holds no more than node itself.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { heapFlagsGiven, LAUNCH_HEAP_FLAGS } from './tuning';

/** Signals a supervisor or a terminal sends to stop or reload a daemon. */
const FORWARDED: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR2'];

type Execve = (file: string, args: readonly string[], env: NodeJS.ProcessEnv) => never;

function relaunch(argv: readonly string[]): void {
  const args = [...process.execArgv, ...LAUNCH_HEAP_FLAGS, join(__dirname, 'cli.js'), ...argv];
  const execve = (process as unknown as { execve?: Execve }).execve;
  if (typeof execve === 'function' && process.platform !== 'win32') {
    try {
      execve(process.execPath, [process.execPath, ...args], process.env);
    } catch {
      // Not available here after all (an unusual build): a child process instead.
    }
  }
  const child = spawn(process.execPath, args, { stdio: 'inherit', detached: process.platform !== 'win32' });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  for (const s of FORWARDED) process.on(s, forward);
  child.on('error', (err) => {
    process.stderr.write(`nvr2mqtt: cannot start node: ${err.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    for (const s of FORWARDED) process.off(s, forward);
    // Ended by a signal: so does this process (a supervisor sees what happened).
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
}

if (heapFlagsGiven()) void import('./cli').then(({ runCommand }) => runCommand(process.argv.slice(2)));
else relaunch(process.argv.slice(2));
