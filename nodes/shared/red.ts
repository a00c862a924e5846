/**
 * The slice of the Node-RED runtime API these nodes use (no @types/node-red: it lags behind
 * Node-RED 4 and pulls in express types). Kept structural so tests can pass the real runtime.
 */
import type { EventEmitter } from 'node:events';

export interface NodeStatus {
  fill?: 'red' | 'green' | 'yellow' | 'blue' | 'grey';
  shape?: 'ring' | 'dot';
  text?: string;
}

/** Properties of a node as stored in the flow JSON. */
export interface NodeDef {
  id: string;
  type: string;
  name?: string;
  z?: string;
  [key: string]: unknown;
}

export type NodeMessage = { [key: string]: unknown; payload?: unknown; topic?: string; _msgid?: string };
export type SendFn = (msg: NodeMessage | Array<NodeMessage | null>) => void;
export type DoneFn = (err?: Error) => void;

export interface RedNode extends EventEmitter {
  id: string;
  type: string;
  name?: string;
  credentials?: Record<string, string | undefined>;
  status(status: NodeStatus): void;
  send(msg: NodeMessage): void;
  error(err: unknown, msg?: NodeMessage): void;
  warn(msg: unknown): void;
  log(msg: unknown): void;
  debug(msg: unknown): void;
}

export type InputHandler = (msg: NodeMessage, send: SendFn, done: DoneFn) => void;
export type CloseHandler = (removed: boolean, done: () => void) => void;

/** Minimal express-like request/response for the admin routes. */
export interface AdminRequest {
  body?: unknown;
}
export interface AdminResponse {
  status(code: number): AdminResponse;
  json(body: unknown): void;
}
export type AdminHandler = (req: AdminRequest, res: AdminResponse, next: (err?: unknown) => void) => void;

export interface RED {
  nodes: {
    createNode(node: object, def: NodeDef): void;
    registerType<N extends RedNode>(
      type: string,
      ctor: (this: N, def: NodeDef) => void,
      opts?: { credentials?: Record<string, { type: 'text' | 'password' }> },
    ): void;
    getNode(id: string): RedNode | null;
    getCredentials(id: string): Record<string, string | undefined> | undefined;
  };
  httpAdmin: {
    get(path: string, ...handlers: AdminHandler[]): void;
    post(path: string, ...handlers: AdminHandler[]): void;
  };
  auth: { needsPermission(permission: string): AdminHandler };
  util: {
    evaluateNodeProperty(
      value: string,
      type: string,
      node: RedNode,
      msg: NodeMessage,
      callback: (err: Error | null, result?: unknown) => void,
    ): void;
    setMessageProperty(msg: NodeMessage, prop: string, value: unknown, createMissing?: boolean): boolean;
  };
  /** The node set's message catalogue (locales/<lang>/<node file>.json), namespaced per node file. */
  _(key: string, substitutions?: Record<string, unknown>): string;
}
