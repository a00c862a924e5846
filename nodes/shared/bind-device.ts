import type { NvrClient } from '../../core/client';
import type { DeviceError } from '../../core/errors';
import { asDeviceError } from './errors';
import type { DeviceSession } from './device-session';
import type { SharedEventStream } from './event-stream';
import type { LiveParts } from './live-parts';
import type { CloseHandler, NodeStatus, RED, RedNode } from './red';
import { connectionStatus, failureStatus, type ConnectionState } from './status';

/** What an `nvr-device` config node offers to the nodes that use it. */
export interface DeviceNode extends RedNode {
  session: DeviceSession;
  /** The device's one event stream, shared by its nvr-event nodes. */
  events: SharedEventStream;
  /** The live parts of its channels as last seen (events and read-backs), for nvr-event nodes. */
  live: LiveParts;
}

export interface DeviceBinding {
  client: NvrClient;
  /**
   * Shows a failure of the node's own work (red ring, short reason) until `clearFailure`. A failed
   * connection is left to the connection status, which every node using the device shows already.
   */
  showFailure(err: DeviceError): void;
  /** After a success: the connection status again, if a failure was on display. */
  clearFailure(): void;
  /** While true, connection changes are tracked but not shown (a progress status is on display). */
  muted: boolean;
  /** Shows the connection status now (after a progress or failure status the node set itself). */
  showConnection(): void;
}

/** Error kinds that are about the connection: the session's state shows them on every node. */
const CONNECTION_KINDS: ReadonlySet<DeviceError['kind']> = new Set(['session', 'lockout', 'transport']);

const NO_DEVICE_STATUS: NodeStatus = { fill: 'red', shape: 'ring', text: 'no device configured' };

/**
 * Joins the shared session of the node's `nvr-device` and mirrors the connection in the node's
 * status; leaves the session when the node closes (last one out logs out). `onClose` runs first,
 * for the node's own clean-up. Returns undefined (and says so in the status) without a device.
 */
export function bindDevice(
  RED: RED,
  node: RedNode,
  deviceId: unknown,
  onClose: (removed: boolean) => Promise<void> | void = () => undefined,
): DeviceBinding | undefined {
  const device = typeof deviceId === 'string' && deviceId ? (RED.nodes.getNode(deviceId) as DeviceNode | null) : null;
  /** The node's own clean-up: never throws, never rejects. */
  const runOnClose = (removed: boolean) =>
    Promise.resolve()
      .then(() => onClose(removed))
      .catch(() => undefined);
  if (!device?.session) {
    node.status(NO_DEVICE_STATUS);
    node.on('close', ((removed, done) => {
      void runOnClose(removed).finally(done);
    }) as CloseHandler);
    return undefined;
  }
  let state: ConnectionState = 'idle';
  let lastError: DeviceError | undefined;
  let closed = false;
  let failing = false;
  const show = () => node.status(connectionStatus(state, lastError, device.session.current?.loginHeldUntil));
  const binding: Omit<DeviceBinding, 'client'> = {
    muted: false,
    showFailure(err) {
      if (closed || CONNECTION_KINDS.has(err.kind)) return;
      failing = true;
      node.status(failureStatus(err));
    },
    clearFailure() {
      if (closed || !failing) return;
      failing = false;
      show();
    },
    showConnection() {
      if (!closed) show();
    },
  };
  let client: NvrClient | undefined;
  let setupError: DeviceError | undefined;
  try {
    client = device.session.acquire(node.id, (s, err) => {
      state = s;
      lastError = err;
      if (s !== 'closed' && !binding.muted) show();
    });
  } catch (e) {
    setupError = asDeviceError(e); // unusable settings: shown already, and every request fails with it
  }
  node.on('close', ((removed, done) => {
    closed = true;
    runOnClose(removed)
      .then(() => device.session.release(node.id))
      .catch(() => undefined)
      .finally(done);
  }) as CloseHandler);
  return Object.defineProperty(binding, 'client', {
    enumerable: true,
    get() {
      if (!client) throw setupError!; // acquire() either returned a client or threw
      return client;
    },
  }) as DeviceBinding;
}
