/**
 * A private Mosquitto for the tests that need MQTT 5 (session takeover, retain as published, reason codes) or a
 * broker ACL: its own process on a free port, a config written for it, nothing persisted. The embedded aedes speaks
 * 3.1.1 only, and the shared Mosquitto of MQTT_TEST_URL cannot be given an ACL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from './until';

const BINARY = ['/usr/sbin/mosquitto', '/usr/bin/mosquitto', '/usr/local/sbin/mosquitto'].find((p) => existsSync(p));

/** Why Mosquitto cannot run here, or undefined when it can. */
export const missingMosquitto: string | undefined = BINARY ? undefined : 'mosquitto not installed (apt-get install mosquitto)';

export interface PrivateMosquitto {
  url: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

/** `acl`: the text of an ACL file; its `topic` lines before any `user` line apply to the (anonymous) clients. */
export async function startMosquitto(opts: { acl?: string } = {}): Promise<PrivateMosquitto> {
  if (!BINARY) throw new Error(missingMosquitto);
  const dir = mkdtempSync(join(tmpdir(), 'mosquitto-'));
  chmodSync(dir, 0o755); // started as root, Mosquitto reads its files as the user mosquitto
  const port = await freePort();
  const lines = [`listener ${port} 127.0.0.1`, 'allow_anonymous true', 'persistence false', 'log_dest none'];
  if (opts.acl !== undefined) {
    writeFileSync(join(dir, 'acl'), opts.acl, { mode: 0o644 });
    lines.push(`acl_file ${join(dir, 'acl')}`);
  }
  writeFileSync(join(dir, 'mosquitto.conf'), `${lines.join('\n')}\n`);
  const child: ChildProcess = spawn(BINARY, ['-c', join(dir, 'mosquitto.conf')], { stdio: ['ignore', 'ignore', 'inherit'] });
  const accepting = () =>
    new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
  let up = false;
  await until(() => {
    void accepting().then((ok) => (up ||= ok));
    return up;
  }, `mosquitto listening on ${port}`);
  return {
    url: `mqtt://127.0.0.1:${port}`,
    async stop() {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
