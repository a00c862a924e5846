/** What one route of the simulator is: the request it gets and the handler that answers it. */
import type { IncomingMessage } from 'node:http';
import type { Session } from './auth';
import type { Reply } from './envelope';

export interface Ctx {
  req: IncomingMessage;
  /** Whole request body (the envelope). */
  body: Record<string, unknown>;
  data: Record<string, unknown>;
  /** Present on routes with auth 'session'. */
  session?: Session;
  onAbort: (cb: () => void) => void;
}

export interface Route {
  /** 'none': no session needed (login, logout); 'session': cookie + CSRF; 'heartbeat': the same, counts as heartbeat. */
  auth: 'none' | 'session' | 'heartbeat';
  handler(ctx: Ctx): Reply | Promise<Reply>;
}
