import type { LogFn } from '../core/session';
import { registerAdminRoutes } from './admin';
import type { DeviceNode } from './bind-device';
import { clientOptions, type DeviceProps } from './device-config';
import { DeviceSession } from './device-session';
import { holdSecret } from './secrets';
import { SharedEventStream } from './event-stream';
import { useTranslator } from './status';
import type { CloseHandler, NodeDef, RED } from './red';

type LogLevel = Parameters<LogFn>[0];

/**
 * Client log lines -> the config node's log. Client errors are logged as warnings: each one already
 * reaches the user where they act on it (the status of every node using the device, Catch nodes).
 */
const LOG_METHOD: Record<LogLevel, 'debug' | 'log' | 'warn'> = { debug: 'debug', info: 'log', warn: 'warn', error: 'warn' };

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
    const log = (level: LogLevel, message: string) => node[LOG_METHOD[level]](message);
    node.session = new DeviceSession(clientOptions(def as DeviceProps, { username: creds.username, password: creds.password }, log));
    node.events = new SharedEventStream(() => node.session.current);
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
