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
  /**
   * A route whose body is raw data (a firmware file), not a JSON envelope: the front counts its bytes and keeps the
   * first `headBytes`, and calls this instead of `handler` (which then answers nothing).
   */
  upload?: { headBytes: number; handle(req: IncomingMessage, session: Session, size: number, head: Buffer): Reply };
}
