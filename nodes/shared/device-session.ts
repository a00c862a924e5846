import { NvrClient, type ClientOptions } from '../../core/client';
import type { DeviceError } from '../../core/errors';
import { asDeviceError } from './errors';
import { refusedLately } from './login-failures';
import type { ConnectionState } from './status';

export type StateListener = (state: ConnectionState, err?: DeviceError) => void;

/** Upper bound for logging out on close: Node-RED waits 15 s for all nodes; stay well below. */
export const CLOSE_TIMEOUT_MS = 1500;

/** Resolves when `p` settles or after `ms`, whichever comes first; never rejects, leaves no timer. */
export function settleWithin(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return Promise.race([
    p.then(
      () => undefined,
      () => undefined,
    ),
    limit,
  ]).finally(() => clearTimeout(timer));
}

/**
 * One NvrClient shared by every node that uses a config node: opened (logged in) when the first
 * user arrives, closed (logout, timers cleared) when the last one leaves or the config node closes.
 */
export class DeviceSession {
  private client?: NvrClient;
  private readonly users = new Map<string, StateListener>();
  private closing: Promise<void> = Promise.resolve();

  /** `observer` hears every state change of the client too (the config node's own log uses it). */
  constructor(
    private readonly options: ClientOptions,
    private readonly observer?: StateListener,
  ) {}

  /** Whether a client with `other` options would talk to the same device as the same user. */
  matches(other: ClientOptions): boolean {
    const a = this.options;
    return (
      a.url === other.url &&
      a.username === other.username &&
      a.password === other.password &&
      String(a.tls?.ca ?? '') === String(other.tls?.ca ?? '') &&
      (a.tls?.fingerprint ?? '') === (other.tls?.fingerprint ?? '')
    );
  }

  get userCount(): number {
    return this.users.size;
  }

  /** The open client, if any user holds the session. */
  get current(): NvrClient | undefined {
    return this.client;
  }

  /**
   * Registers a user; its listener hears every state change, starting with the current one. Throws
   * (after telling the listener) when the settings cannot make a client, e.g. no username.
   */
  acquire(userId: string, listener: StateListener): NvrClient {
    this.users.set(userId, listener);
    let client = this.client;
    if (!client) {
      try {
        client = this.client = new NvrClient(this.options);
      } catch (e) {
        const err = asDeviceError(e);
        safeCall(listener, 'error', err);
        throw err;
      }
      const c = client;
      c.on('error', () => undefined); // an unhandled 'error' event would throw; states carry errors
      c.on('state', (state: ConnectionState, err?: DeviceError) => {
        if (this.client !== c) return;
        if (this.observer) safeCall(this.observer, state, err);
        for (const l of [...this.users.values()]) safeCall(l, state, err);
      });
      // Log in now so every user shows the connection at once; failures show up as state 'error'. Credentials the
      // device refused a moment ago (before this deploy) wait instead: asking again only counts toward its block.
      const refused = refusedLately(this.options);
      if (refused) c.holdLogins(refused.error, refused.until);
      else c.login().catch(() => undefined);
    }
    safeCall(listener, client.state, client.lastError);
    return client;
  }

  /** Deregisters a user; the last one out closes the session. Resolves within CLOSE_TIMEOUT_MS. */
  release(userId: string): Promise<void> {
    this.users.delete(userId);
    return this.users.size === 0 ? this.close() : Promise.resolve();
  }

  /** Closes the client whatever the user count (config node closing). Idempotent. */
  close(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    if (c) {
      this.closing = settleWithin(c.close(), CLOSE_TIMEOUT_MS).finally(() => c.removeAllListeners('state'));
    }
    return this.closing;
  }
}

function safeCall(listener: StateListener, state: ConnectionState, err?: DeviceError) {
  try {
    listener(state, err);
  } catch {
    // a status update must never break the session
  }
}
