/**
 * One configured device: its NvrClient, what the bridge knows about it (model: info, channel list, Range
 * and Get of the table's pages), one poll, and the page writes (read, merge, Set, read back).
 */
import { EventEmitter } from 'node:events';
import { channelList as parseChannelList, channelModels, DeviceError, NvrClient, type ClientOptions } from '../core';
import type { DeviceConfig } from './config';
import { emptyEventValues } from './event-state';
import { alarmKeys } from './event-sensors';
import { errorText, type Logger } from './log';
import { channelIds, channelOnline, emptyModel, isMarker, valueAt, type DeviceModel, type Json } from './state';
import { pageSpec, POLLED_PAGES, type PageName } from './table';
import { buildSetBody, WriteQueue, type Change, type Job } from './write-queue';

export interface DeviceOptions {
  log: Logger;
  /** Request deadline. Default 10000 ms. */
  timeoutMs?: number;
  /** Build the client (tests); default `new NvrClient(...)`. */
  clientFactory?: (cfg: DeviceConfig) => NvrClient;
}

/** How the bridge (and `--check`) reach a configured device. */
export function deviceClientOptions(cfg: DeviceConfig, timeoutMs = 10_000): ClientOptions {
  return {
    url: cfg.url,
    username: cfg.username,
    password: cfg.password,
    timeoutMs,
    tls: cfg.tls ? { ca: cfg.tls.ca, fingerprint: cfg.tls.fingerprint } : undefined,
  };
}

/** Errors that mean "the device is not answering properly": the poll failed. */
function isOutage(err: unknown): boolean {
  if (!(err instanceof DeviceError)) return true;
  return err.kind === 'transport' || err.kind === 'session' || err.kind === 'lockout' || err.kind === 'busy';
}

/**
 * What every poll read passes to the client: today nothing; with the transport's priorities (phase 2)
 * `{ priority: 'poll' }`, so that commands overtake queued polls. The one place to change.
 */
type PollCallOptions = Record<string, never>;
const POLL_CALL: PollCallOptions = {};

export class Device extends EventEmitter {
  readonly id: string;
  readonly client: NvrClient;
  model: DeviceModel = emptyModel();
  /** Static info (system info and Ranges) loaded at least once since the device last came online. */
  private loaded = false;
  private onlineKey?: string;
  /** Bumped by every write: a poll's Get that started before a write must not overwrite its read-back. */
  private readonly epochs = new Map<string, number>();
  private readonly reportedPageErrors = new Map<string, string>();
  /** Which channels answer which page with a `{reason}` marker: entities depend on it. */
  private markers = '';
  /** Static info was (re)loaded: the next update changes entities even if the pages look the same. */
  private structurePending = true;
  private channelCache?: { model: DeviceModel; ids: string[] };
  /** The recorder's own alarm inputs (`Login/DeviceInfo`, read once): they make every channel able to raise `io`. */
  private recorderInputs?: number;
  readonly writes: WriteQueue;
  private readonly log: Logger;

  constructor(readonly cfg: DeviceConfig, opts: DeviceOptions) {
    super();
    this.id = cfg.id;
    this.log = opts.log;
    this.client = opts.clientFactory?.(cfg) ?? new NvrClient({
      ...deviceClientOptions(cfg, opts.timeoutMs),
      log: (level, msg) => this.log[level](msg),
    });
    this.writes = new WriteQueue((page, batch) => this.write(page, batch));
    if (cfg.events) this.model.events = emptyEventValues();
  }

  get name(): string {
    return this.cfg.name;
  }

  /** Channels the bridge publishes for this device (config `channels` applied). */
  channels(): string[] {
    if (this.channelCache?.model !== this.model) this.channelCache = { model: this.model, ids: channelIds(this.model, this.cfg.channels) };
    return this.channelCache.ids;
  }

  /** Forget static info: the next poll reads system info and Ranges again (device back online, refresh). */
  invalidate(): void {
    this.loaded = false;
  }

  /** System info and the Range of every polled page (`refresh` asks the device again, bypassing caches). */
  async load(refresh: boolean): Promise<void> {
    const info = (await this.pollRead('SystemInfo/Base', 'Get', () => this.client.systemInfo())) as Json;
    const ranges = new Map<PageName, Json | null>();
    await Promise.all(POLLED_PAGES.map(async (page) => ranges.set(page, await this.rangeOf(page, refresh))));
    if (this.model.events && this.recorderInputs === undefined) this.recorderInputs = await this.alarmInputs();
    this.model = { ...this.model, info, ranges };
    this.loaded = true;
    this.structurePending = true;
  }

  private async rangeOf(page: PageName, refresh = false): Promise<Json | null> {
    try {
      return (await this.pollRead(page, 'Range', (o) => this.client.cachedRange(page, { ...o, refresh }))) as Json;
    } catch (err) {
      if (err instanceof DeviceError && err.kind === 'unsupported') return null; // R2: no such page
      throw err;
    }
  }

  /** One poll: channel list and Get of every supported page. Throws when the device is not answering. */
  async poll(): Promise<void> {
    const started = Date.now();
    if (!this.loaded) await this.load(true);
    let channelList: Map<string, boolean> | undefined;
    let models: DeviceModel['channelModels'];
    try {
      // One answer, two views: the channel list (online flags) and the channel models (status, abilities).
      const data = await this.pollRead('Login/ChannelInfo', 'Get', () => this.client.get('Login/ChannelInfo'));
      channelList = new Map(parseChannelList(data).map((c) => [c.channel, c.online]));
      models = channelModels(data);
    } catch (err) {
      if (isOutage(err)) throw err;
      this.reportPageError('Login/ChannelInfo', err);
    }
    // A channel that went on- or offline changes what Range lists: read the Ranges again.
    const onlineKey = channelList ? [...channelList].map(([c, o]) => `${c}:${o ? 1 : 0}`).join(',') : '';
    if (this.onlineKey !== undefined && onlineKey !== this.onlineKey) await this.load(true);
    this.onlineKey = onlineKey;

    const ranges = new Map(this.model.ranges);
    const gets = new Map(this.model.gets);
    await Promise.all(POLLED_PAGES.map(async (page) => {
      // cachedRange re-reads a Range after its TTL: Ranges follow device changes without a restart.
      const range = await this.rangeOf(page);
      ranges.set(page, range);
      if (!range) {
        gets.delete(page);
        return;
      }
      const epoch = this.epochs.get(page) ?? 0;
      try {
        const data = (await this.pollRead(page, 'Get', (_o) => this.client.get(page, pageSpec(page)?.getData /* , _o: once core's get takes options */))) as Json;
        if ((this.epochs.get(page) ?? 0) === epoch) gets.set(page, data);
        else gets.set(page, this.model.gets.get(page) ?? data); // a write's read-back is newer
        this.reportedPageErrors.delete(page);
      } catch (err) {
        if (isOutage(err)) throw err;
        if (err instanceof DeviceError && err.kind === 'unsupported') gets.delete(page);
        this.reportPageError(page, err);
      }
    }));
    // Most polls find nothing new: then the model keeps its identity and nothing downstream runs.
    const prev = this.model;
    const list = channelList ?? prev.channelList;
    const listChanged = !sameChannelList(list, prev.channelList);
    const rangesChanged = POLLED_PAGES.some((p) => ranges.get(p) !== prev.ranges.get(p));
    const getsChanged = POLLED_PAGES.some((p) => !sameJson(gets.get(p), prev.gets.get(p)));
    if (!listChanged && !rangesChanged && !getsChanged) return;
    // Spread: what events wrote meanwhile stays.
    this.model = { ...prev, channelList: list, ranges, gets, readAt: started, ...(models ? { channelModels: models } : {}) };
    const structure = this.markersChanged() || listChanged || rangesChanged || this.structurePending;
    this.structurePending = false;
    if (structure) this.updateAlarmKeys();
    this.emit('update', { structure });
  }

  /**
   * Every device read of a poll goes through here (phase 2 passes the transport's `{ priority: 'poll' }` in
   * this one place). At debug level each request is logged with its duration (never its body).
   */
  private async pollRead<T>(page: string, op: string, call: (opts: PollCallOptions) => Promise<T>): Promise<T> {
    if (!this.log.enabled('debug')) return call(POLL_CALL);
    const t0 = performance.now();
    try {
      const out = await call(POLL_CALL);
      this.log.debug(`poll ${page}/${op}: ${Math.round(performance.now() - t0)} ms`);
      return out;
    } catch (err) {
      this.log.debug(`poll ${page}/${op}: failed after ${Math.round(performance.now() - t0)} ms: ${errorText(err)}`);
      throw err;
    }
  }

  /** Alarm keys per channel (the alarm entities) from the channel models; with events on. */
  private updateAlarmKeys(): void {
    const ev = this.model.events;
    if (!ev) return;
    const keys = alarmKeys(this.channels(), this.model.channelModels, this.recorderInputs ?? 0, ev.keys, (ch) => channelOnline(this.model, ch));
    this.model = { ...this.model, events: { ...this.model.events!, keys } };
  }

  /** `local_alarmin_num` of `Login/DeviceInfo`; 0 when the device does not say. */
  private async alarmInputs(): Promise<number> {
    try {
      const n = (await this.pollRead('Login/DeviceInfo', 'Get', () => this.client.deviceInfo())).local_alarmin_num;
      return typeof n === 'number' && n > 0 ? n : 0;
    } catch (err) {
      if (isOutage(err)) throw err;
      return 0;
    }
  }

  private reportPageError(page: string, err: unknown): void {
    const text = errorText(err);
    if (this.reportedPageErrors.get(page) === text) return;
    this.reportedPageErrors.set(page, text);
    this.log.warn(`${page}: ${text}`);
    this.emit('event', 'device_error', { device: this.id, page, error: text, error_code: (err as DeviceError).error_code });
  }

  /** Write executor of the queue: read, merge every queued change, Set, read back, publish. */
  private async write(page: string, batch: Job[]): Promise<Json> {
    this.log.debug(`write ${page}: ${batch.length} queued change(s)`);
    const spec = pageSpec(page);
    const getData = spec?.getData;
    if (batch.length === 1 && batch[0].kind === 'raw') {
      await this.client.set(page, batch[0].data);
    } else {
      if (!spec) throw new Error(`no Set shape for page ${page}`);
      const changes: Change[] = batch.flatMap((j) => (j.kind === 'changes' ? j.changes : []));
      const [get, range] = await Promise.all([
        this.client.get(page, getData) as Promise<Json>,
        this.client.cachedRange(page) as Promise<Json>,
      ]);
      await this.client.set(page, buildSetBody(spec, get, range, changes));
    }
    this.epochs.set(page, (this.epochs.get(page) ?? 0) + 1);
    const polled = POLLED_PAGES.includes(page as PageName);
    const readAt = Date.now();
    let readBack: Json;
    try {
      readBack = (await this.client.get(page, getData));
    } catch (err) {
      if (polled) throw err;
      return {}; // a page without Get: the Set was accepted, nothing to read back
    }
    if (polled) {
      const gets = new Map(this.model.gets);
      gets.set(page as PageName, readBack);
      this.model = { ...this.model, gets, readAt };
      this.emit('update', { structure: this.markersChanged() });
    }
    return readBack;
  }

  /** Records which channels now answer a page with a `{reason}` marker; true when that changed. */
  private markersChanged(): boolean {
    const markers = markerSignature(this.model);
    const changed = markers !== this.markers;
    this.markers = markers;
    return changed;
  }

  async close(): Promise<void> {
    this.writes.close();
    if (this.client.state === 'connected') this.log.info('logging out');
    try {
      await this.client.close();
    } catch (err) {
      this.log.debug(`logout: ${errorText(err)}`);
    }
  }
}

/** Deep equality of JSON values (Get answers), without allocating. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  let n = 0;
  for (const k in ao) {
    if (!Object.hasOwn(bo, k) || !sameJson(ao[k], bo[k])) return false;
    n++;
  }
  for (const k in bo) if (Object.hasOwn(bo, k)) n--;
  return n === 0;
}

/** Same channels, same online flags, same order (what a poll compares every time, without allocating arrays). */
function sameChannelList(a: Map<string, boolean> | undefined, b: Map<string, boolean> | undefined): boolean {
  if (a === b) return true;
  if (!a || !b || a.size !== b.size) return false;
  const other = b.entries();
  for (const [ch, online] of a) {
    const [otherCh, otherOnline] = other.next().value!;
    if (ch !== otherCh || online !== otherOnline) return false;
  }
  return true;
}

function markerSignature(model: DeviceModel): string {
  let sig = '';
  for (const page of POLLED_PAGES) {
    const ci = valueAt(model.gets.get(page), ['channel_info']);
    if (ci && typeof ci === 'object') for (const [ch, block] of Object.entries(ci)) if (isMarker(block)) sig += `${page}:${ch};`;
  }
  return sig;
}
