/**
 * Request/response API for any page: `<base>/bridge/request/{range,get,set,refresh}` with
 * `{"device", "page", "data", "transaction"}`; the answer goes to `<base>/bridge/response/<op>` as
 * `{"status":"ok","data",...,"transaction"}` or `{"status":"error","error","error_code","transaction"}`.
 * A Set is checked against the page's Range before it is sent and goes through the page's write queue.
 * `bridge/request/upgrade` (off by default) is the local firmware upgrade from a file: bridge/api/upgrade-request.ts;
 * `bridge/request/diagnostics` a capture of a device (bridge/api/diagnostics-request.ts);
 * `bridge/request/prompt` (off by default) uploads a voice prompt from a file: bridge/api/prompt-request.ts.
 */
import { addressingOf, DeviceError, findPage, parsePageName, validateAgainstRange, violationText } from '../../core';
import type { Quoter } from '../../core/quote';
import { isPlainObject } from '../../core/json';
import { lookupDevice, requireOnline } from './commands';
import { MAX_PAYLOAD, parseObject, shownViolations } from '../device/payload';
import type { BridgeContext } from './context';
import { Refusal } from '../device/refusal';
import { errorText } from '../base/log';
import type { Json } from '../device/state';
import { writeRefusal, type RequestApiConfig } from './request-permission';
import { REQUEST_OPS } from '../mqtt/topics';
import { UpgradeRequests } from './upgrade-request';
import { promptRequest } from './prompt-request';
import type { PromptUploads } from '../features/speaker';
import { DiagnosticsRequests } from './diagnostics-request';
import type { FeatureRequest } from '../features/feature';

/**
 * Device secrets a page may carry (developer mode FTP password...) are never published: members named like a password,
 * and those the page declares secret (`secretMembers`: the push listener's path of `AlarmConfig/EventPush`).
 */
function maskSecrets(x: unknown, secret: readonly string[] = [], depth = 0): unknown {
  if (depth > 32) return x;
  if (Array.isArray(x)) return x.map((e) => maskSecrets(e, secret, depth + 1));
  if (!isPlainObject(x)) return x;
  const out: Json = {};
  for (const [k, v] of Object.entries(x)) {
    const hidden = /passw(or)?d|secret|token/i.test(k) || secret.includes(k);
    out[k] = hidden && typeof v === 'string' && v !== '' ? '***' : maskSecrets(v, secret, depth + 1);
  }
  return out;
}

/** The secret members of the page a request names. */
function secretsOf(msg: Json): readonly string[] {
  const page = parsePageName(msg.page);
  return (page && findPage(page)?.secretMembers) || [];
}

/** The top level of a JSON object payload, whatever its problems further down; undefined when none. */
function topLevelOf(payload: Buffer): Json | undefined {
  if (payload.length > MAX_PAYLOAD) return undefined;
  try {
    const doc: unknown = JSON.parse(payload.toString('utf8'));
    return isPlainObject(doc) ? doc : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The request's transaction: the client's correlation id, a string or a number. The request carrying it is already on
 * the bus, so its answers echo it exactly (`echo`), whatever it contains; the bridge's own words (log lines, the
 * `command_refused` event) quote it like any text the user typed (`shown`): there a transaction 12345678 that is a
 * password typed by mistake is withheld.
 */
interface Transaction {
  echo: Json;
  shown?: string | number;
}

function transactionOf(msg: Json | undefined, q: Quoter): Transaction {
  const t = msg?.transaction;
  if (typeof t === 'string') return { echo: { transaction: t }, shown: q.quote(t, 128) };
  if (typeof t !== 'number' || !Number.isFinite(t)) return { echo: {} };
  return { echo: { transaction: t }, shown: q.hasSecret(String(t)) ? q.quote(String(t)) : t };
}

/**
 * Meta keys are not in Range, so the Range check lets them through: hold them to what the device accepts.
 * `page_type` only at the top, with the page's own value; `chn_index` only inside a channel block, naming it.
 */
function checkMeta(data: Json, page: string, range: Json): string[] {
  const problems: string[] = [];
  const pageType = addressingOf(findPage(page)).top.page_type ?? (typeof range.page_type === 'string' ? range.page_type : undefined);
  if (Object.hasOwn(data, 'page_type') && data.page_type !== pageType) {
    problems.push(pageType === undefined ? 'page_type: this page takes none' : `page_type: must be "${String(pageType)}"`);
  }
  if (Object.hasOwn(data, 'chn_index')) problems.push('chn_index: only inside a channel block');
  const walk = (node: unknown, path: string, channel?: string) => {
    if (Array.isArray(node)) node.forEach((x, i) => walk(x, `${path}.${i}`));
    if (!isPlainObject(node)) return;
    for (const [k, v] of Object.entries(node)) {
      const here = path ? `${path}.${k}` : k;
      if (path && k === 'page_type') problems.push(`${here}: page_type belongs at the top level only`);
      if (k === 'chn_index' && path && v !== channel) problems.push(`${here}: must be "${channel ?? '(not in a channel block)'}"`);
      walk(v, here, path === 'channel_info' ? k : undefined);
    }
  };
  for (const [k, v] of Object.entries(data)) walk(v, k, undefined);
  return problems;
}

export class Requests {
  constructor(
    private readonly ctx: BridgeContext,
    private readonly api: RequestApiConfig = {
      enabled: true,
      allow_pages: [],
      allow_any_page: false,
      allow_upgrade_from: [],
      allow_prompts_from: [],
    },
    private readonly promptUploads?: PromptUploads,
    /** Operations the features answer (`recordings`...), under the same rules as `get`. */
    private readonly featureOps: ReadonlyMap<string, FeatureRequest> = new Map(),
  ) {
    this.upgrades = new UpgradeRequests(ctx, api);
    this.diagnostics = new DiagnosticsRequests(ctx);
  }

  private readonly upgrades: UpgradeRequests;
  private readonly diagnostics: DiagnosticsRequests;

  /** Identical reads in flight (device, op, page, data): a flood of the same request shares one device call. */
  private readonly reads = new Map<string, Promise<unknown>>();

  /** Never throws: every outcome is a response (and refusals also an event). */
  handle(topic: string, op: string, payload: Buffer, retained: boolean): void {
    const safeOp = /^[a-z_]{1,32}$/.test(op) ? op : 'invalid';
    // Parsed first: every answer, refusals included, carries the request's transaction.
    let msg: Json | undefined;
    let parseError: Error | undefined;
    try {
      msg = parseObject(payload);
    } catch (err) {
      parseError = err instanceof Error ? err : new Error(String(err));
    }
    // A request refused for its shape (nested too deeply...) still gets its transaction back.
    const transaction = transactionOf(msg ?? topLevelOf(payload), this.ctx.quoter);
    try {
      if (this.ctx.stopping) throw new Refusal('the bridge is stopping');
      if (retained) throw new Refusal('retained request ignored (requests must not be retained)');
      if (parseError) throw parseError;
      if (!REQUEST_OPS.includes(op as never))
        throw new Refusal(`unknown request "${this.ctx.quoter.quote(op)}" (expected ${REQUEST_OPS.join(', ')})`);
    } catch (err) {
      this.fail(topic, safeOp, transaction, err);
      return;
    }
    this.ctx.log.debug(
      `request ${op}${typeof msg!.device === 'string' ? ` device ${this.ctx.quoter.quote(msg!.device)}` : ''}` +
        `${typeof msg!.page === 'string' ? ` page ${this.ctx.quoter.quote(msg!.page)}` : ''}${transaction.shown !== undefined ? ` transaction ${String(transaction.shown)}` : ''}`,
    );
    void this.ctx.track(
      this.run(op, msg!, transaction).then(
        (data) => this.respond(op, { status: 'ok', data: maskSecrets(data, secretsOf(msg!)), ...transaction.echo }),
        (err) => this.fail(topic, op, transaction, err),
      ),
    );
  }

  /** Reads shared while in flight: one device call however many identical requests arrive meanwhile. */
  private shared(key: string, read: () => Promise<unknown>): Promise<unknown> {
    let p = this.reads.get(key);
    if (!p) {
      p = read().finally(() => this.reads.delete(key));
      this.reads.set(key, p);
    }
    return p;
  }

  private respond(op: string, body: Json): void {
    this.ctx.link.publish(this.ctx.topics.response(op), JSON.stringify(body), { qos: 1, queue: true });
  }

  /** Reports a refused or failed request; no configured password leaves, whatever the error quotes (redacted here). */
  private fail(topic: string, op: string, transaction: Transaction, err: unknown): void {
    const q = this.ctx.quoter;
    const t = transaction.echo;
    if (err instanceof Refusal) {
      const shown = q.quote(topic, 256);
      const reason = q.redact(err.reason);
      const details = q.redactDeep(err.details);
      this.ctx.log.info(`request refused on ${shown}: ${reason}`);
      const quoted = transaction.shown !== undefined ? { transaction: transaction.shown } : {};
      this.ctx.event('command_refused', { topic: shown, reason, ...details, ...quoted });
      this.respond(op, { status: 'error', error: reason, error_code: 'refused', ...details, ...t });
      return;
    }
    const e = err instanceof DeviceError ? err : undefined;
    this.respond(op, {
      status: 'error',
      error: q.redact(errorText(err)),
      error_code: e?.error_code ?? 'internal_error',
      ...(e?.violations.length ? { violations: q.redactDeep(e.violations) } : {}),
      ...t,
    });
  }

  private async run(op: string, msg: Json, transaction: Transaction): Promise<unknown> {
    if (op === 'refresh') return this.refresh(msg);
    if (op === 'diagnostics') return this.diagnostics.run(msg);
    if (op === 'upgrade') {
      return this.upgrades.run(msg, (step, detail) => this.respond(op, { status: 'progress', step, ...detail, ...transaction.echo }));
    }
    if (op === 'prompt') {
      if (!this.promptUploads) throw new Refusal('uploading prompts is not available here');
      return promptRequest(this.ctx, this.api, this.promptUploads, msg);
    }
    if (typeof msg.device !== 'string') throw new Refusal('"device" (a device id) is required');
    const h = lookupDevice(this.ctx, msg.device);
    const feature = this.featureOps.get(op);
    if (feature) {
      requireOnline(h);
      return feature(h, msg, (page) => writeRefusal(page, this.api));
    }
    const page = parsePageName(msg.page);
    if (!page) throw new Refusal('"page" must be a page name such as "AlarmConfig/Deterrence"', { device: h.device.id });
    if (msg.data !== undefined && !isPlainObject(msg.data))
      throw new Refusal('"data" must be a JSON object', { device: h.device.id, page });
    const data = (msg.data ?? {}) as Json;
    const notAllowed = op === 'set' ? writeRefusal(page, this.api) : undefined;
    if (notAllowed) throw new Refusal(notAllowed, { device: h.device.id, page });
    requireOnline(h, { page });
    const client = h.device.client;
    if (op === 'range' || op === 'get') {
      const key = `${h.id}\0${op}\0${page}\0${JSON.stringify(data)}`;
      // After commands and polls in the device's budget: a flood of reads from outside waits, or is refused (device_busy).
      const call = { priority: 'request' } as const;
      return this.shared(key, () => (op === 'range' ? client.range(page, data, call) : client.get(page, data, call)));
    }
    // set: the whole payload is checked against the Range first; nothing is sent when it does not fit.
    if (!Object.keys(data).length) throw new Refusal('"data" is empty: nothing to set', { device: h.device.id, page });
    let range: Json;
    try {
      range = await client.cachedRange(page);
    } catch (err) {
      if (err instanceof DeviceError && err.kind === 'unsupported') {
        throw new Refusal(`${page} has no Range on ${h.device.id}, so a Set cannot be checked`, { device: h.device.id, page });
      }
      throw err;
    }
    const metaKeys = addressingOf(findPage(page)).keys;
    const metaProblems = checkMeta(data, page, range);
    if (metaProblems.length) throw new Refusal(metaProblems.join('; '), { device: h.device.id, page });
    const violations = validateAgainstRange(data, range, { metaKeys });
    if (violations.length) {
      const shown = shownViolations(violations, data, this.ctx.quoter);
      throw new Refusal(`outside the device's Range: ${shown.map(violationText).join('; ')}`, {
        device: h.device.id,
        page,
        violations: shown,
      });
    }
    return (await h.device.writes.enqueue(page, { kind: 'raw', data })).readBack;
  }

  private async refresh(msg: Json): Promise<unknown> {
    if (msg.device !== undefined && typeof msg.device !== 'string') throw new Refusal('"device" must be a device id');
    const handles = msg.device !== undefined ? [lookupDevice(this.ctx, msg.device)] : [...this.ctx.devices.values()];
    await Promise.all(handles.map((h) => this.ctx.refresh(h)));
    return { devices: handles.map((h) => ({ id: h.device.id, online: h.online, channels: h.device.channels() })) };
  }
}
