import type { LogFn } from '../../core/session';
import { registerAdminRoutes } from '../shared/admin';
import type { DeviceNode } from '../shared/bind-device';
import { clientOptions, type DeviceProps } from '../shared/device-config';
import { DeviceSession } from '../shared/device-session';
import { holdSecret } from '../shared/secrets';
import { SharedEventStream } from '../shared/event-stream';
import { LiveParts } from '../shared/live-parts';
import { loginWarning, recordLogins } from '../shared/login-failures';
import { useTranslator } from '../shared/status';
import type { CloseHandler, NodeDef, RED } from '../shared/red';

type LogLevel = Parameters<LogFn>[0];

/**
 * Client log lines -> the config node's log. Client errors are logged as warnings: each one already
 * reaches the user where they act on it (the status of every node using the device, Catch nodes).
 */
const LOG_METHOD: Record<LogLevel, 'debug' | 'log' | 'warn'> = { debug: 'debug', info: 'log', warn: 'warn', error: 'warn' };

/**
 * Warnings into the debug sidebar once per failure streak: while the device fails (its session not
 * connected), the first warning is written and the retries that follow go to the debug log, until
 * the device works again (state `connected`). A warning on a working session is always written.
 */
function streakLog(write: (method: 'debug' | 'log' | 'warn', message: string) => void) {
  let connected = false;
  let warned = false;
  return {
    log: (level: LogLevel, message: string) => {
      const method = LOG_METHOD[level];
      if (method === 'warn' && !connected && warned) return write('debug', message);
      if (method === 'warn' && !connected) warned = true;
      write(method, message);
    },
    state: (state: string) => {
      connected = state === 'connected';
      if (connected) warned = false;
    },
  };
}

/**
 * `nvr-device` config node: where a device is and how to log in. It holds the one session shared by
 * every node that uses it (see DeviceSession); credentials live in Node-RED's credential store.
 */
export = function (RED: RED) {
  if (typeof RED._ === 'function') useTranslator((key) => RED._(key));
  function NvrDeviceNode(this: DeviceNode, def: NodeDef) {
    RED.nodes.createNode(this, def);
    const node = this;
    const creds = node.credentials ?? {};
    (node as { url?: unknown }).url = def.url;
    const streak = streakLog((method, message) => node[method](message));
    const options = clientOptions(def as DeviceProps, { username: creds.username, password: creds.password }, streak.log);
    const record = recordLogins(options);
    options.onLogin = (outcome) => {
      record(outcome);
      // Before the device's block, whatever the streak: the next failures lock the user out.
      const warning = outcome.ok ? undefined : loginWarning(options, outcome.error);
      if (warning) node.warn(warning);
    };
    node.session = new DeviceSession(options, (state) => streak.state(state));
    node.live = new LiveParts((channel) => node.session.current?.live(channel));
    node.events = new SharedEventStream(
      () => node.session.current,
      (state) => node.live.update(state, 'device'),
    );
    const releaseSecret = holdSecret(creds.password);
    node.on('close', ((_removed, done) => {
      releaseSecret();
      void node.events
        .close()
        .then(() => node.session.close())
        .finally(done);
    }) as CloseHandler);
  }

  RED.nodes.registerType('nvr-device', NvrDeviceNode, {
    credentials: { username: { type: 'text' }, password: { type: 'password' } },
  });
  registerAdminRoutes(RED);
};
