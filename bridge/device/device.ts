/**
 * One configured device: its NvrClient, what the bridge knows about it (`facts`: identity, channel slots, Range and
 * Get of the table's pages, the live page per channel, the disarm state), one poll, and the writes. Every write goes
 * through core (`update`, `setLive`, `setDisarmed`), which reads, checks, sends and reads back; the read-back lands
 * in the facts. Nothing here knows how a page is requested or written.
 */
import { EventEmitter } from 'node:events';
import {
  ALARM_TYPE_KEYS,
  DeviceError,
  DISARM_MEMBER,
  findOperation,
  findPage,
  identityFrom,
  LIVE_HARDWARE,
  NvrClient,
  readChannelSlots,
  readDisarmAnswer,
  readIdentityPages,
  readLive,
  readManualAlarm,
  recorderAlarmInputs,
  type AlarmType,
  type ChannelSlot,
  type ClientOptions,
  type DisarmPage,
  type DisarmState,
  type Invoker,
  type LateOptions,
  type LiveChange,
  type LiveState,
  type Storage,
} from '../../core';
import { announcedOutputs } from './alarm-output-names';
import type { DeviceConfig } from '../base/config';
import { emptyEventValues } from './event-state';
import { alarmKeys } from './event-sensors';
import { errorText, type Logger } from '../base/log';
import { outsideRangeSignature } from './announced-bounds';
import { sameChannelList, sameJson, structureSignature } from './facts-compare';
import { textDigest } from '../../core/text-digest';
import { channelIds, channelOnline, emptyFacts, type DeviceFacts, type Json } from './state';
import { POLLED_PAGES, polledPages, SETTINGS_PAGES } from './table';
import { mergeChanges, WriteQueue, type Job, type Written } from './write-queue';

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
    // The device's request budget: polls, event checks, commands and the request API share it.
    budget: cfg.request_rate && cfg.request_queue ? { rate: cfg.request_rate, queue: cfg.request_queue } : undefined,
    tls: cfg.tls ? { ca: cfg.tls.ca, fingerprint: cfg.tls.fingerprint } : undefined,
    cameraPasswords: cfg.camera_passwords,
  };
}

/** Errors that mean "the device is not answering properly": the poll failed. */
function isOutage(err: unknown): boolean {
  if (!(err instanceof DeviceError)) return true;
  return err.kind === 'transport' || err.kind === 'session' || err.kind === 'lockout' || err.kind === 'busy';
}

/** The alarm outputs' page (read with every poll, bridge/features/alarm-outputs/). */
const ALARM_OUTPUTS = 'PreviewChannel/ManualAlarm';

/** The page a recorder disarms through, as read to learn it, and its Get answer. */
interface DisarmRead {
  page: DisarmPage;
  data: Json;
}
/** A live channel's key among the write epochs (and in poll logs): `live CH1`. */
const LIVE_EPOCH = 'live ';

const isUnsupported = (err: unknown) => err instanceof DeviceError && err.kind === 'unsupported';

/** What every poll read passes to the client: commands overtake queued polls (the one place it is said). */
const POLL_CALL = { priority: 'poll' } as const;
/**
 * Reads repeated on every poll, besides: an answer identical to the previous poll's comes back unparsed, as the
 * same (frozen) object, so an unchanged poll costs little and compares by identity.
 */
const REPEATED_POLL_CALL = { ...POLL_CALL, reuse: true } as const;

/**
 * Equal answers held as different objects (the facts' came from a shared or written read): the facts take the
 * poll's, the one the client hands out again while the answer is unchanged, so later polls compare by identity.
 */
function adoptSameAnswers(held: Map<string, Json>, polled: Map<string, Json>): void {
  for (const [page, data] of polled) if (held.get(page) !== data) held.set(page, data);
}

/**
 * A poll's page reads, a few at a time: at most 2 are on the wire anyway, and firing every page at once would fill the
 * device's request queue (`request_queue`) with one poll and have the rest of it refused as "device busy".
 */
const PAGES_AT_ONCE = 4;
async function inTurns<T>(items: readonly T[], read: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await read(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(PAGES_AT_ONCE, items.length) }, worker));
}

export class Device extends EventEmitter {
  readonly id: string;
  readonly client: NvrClient;
  facts: DeviceFacts = emptyFacts();
  /** Every read of a poll goes through this: the client with `POLL_CALL` added to each call. */
  private readonly pollClient: Invoker;
  /** `pollClient` for the reads every poll makes (REPEATED_POLL_CALL). */
  private readonly repeatClient: Invoker;
  /** Static info (identity and Ranges) loaded at least once since the device last came online. */
  private loaded = false;
  private onlineKey?: string;
  /** The channel list (and its online key) derived from the last channel slots read. */
  private listOf?: { models: ChannelSlot[]; list: Map<string, boolean>; onlineKey: string; names: string };
  /**
   * Bumped by every write (per page, `live <ch>` per live channel, ALARM_OUTPUTS): a poll that started before must not
   * overwrite its read-back (`keepWritten`).
   */
  private readonly epochs = new Map<string, number>();
  private readonly reportedPageErrors = new Map<string, string>();
  /** Markers, live parts, disarm page: entities depend on them (a digest of their signature, a few KB of text). */
  private structure = '';
  /** Static info was (re)loaded: the next update changes entities even if the pages look the same. */
  private structurePending = true;
  private channelCache?: { facts: DeviceFacts; ids: string[] };
  /** The device has no ManualAlarm page (R2): its alarm outputs are not asked for again. */
  private noAlarmOutputs = false;
  /** The recorder's own alarm inputs (`Login/DeviceInfo`, read once): they make every channel able to raise `io`. */
  private recorderInputs?: number;
  /**
   * This poll's word on the page the device disarms through while that is not known yet: its Get, read once a poll
   * (load and poll share it), is also the poll's read of that page.
   */
  private disarmOfPoll?: Promise<DisarmRead | undefined>;
  /** A poll has read the channels and pages: what the facts say of the channels is known (state may go out). */
  polled = false;
  /** Every settings page is due (first poll, a reload, a read asked for); otherwise one a poll, `settingsTurn`. */
  private settingsDue = true;
  private settingsTurn = 0;
  /** The live pages are due for a read: after a (re)load, and on every poll while `liveEveryPoll`. */
  private liveDue = true;
  /**
   * Without events every poll reads the live pages; with events the device reports live changes itself (polling
   * them would break the idle request budget), unless it turns out to have no event check.
   */
  private liveEveryPoll: boolean;
  /** Live writes per channel not confirmed yet: only the last one's read-back is published (one state per command burst). */
  private readonly liveWrites = new Map<string, number>();
  /** A channel whose confirmed live state is held back until its last pending live write is done. */
  private readonly liveHeld = new Set<string>();
  /** When a live write of a channel was last confirmed: the device's events about earlier states may still come. */
  private readonly liveConfirmedAt = new Map<string, number>();
  /** A read of a channel's live page that settles what its events said (events arriving meanwhile share it). */
  private readonly liveConfirms = new Map<string, Promise<void>>();
  /** How long after a live write's confirmation the device's events may still report a state older than it. */
  private readonly echoWindowMs: number;
  /** The deadline of one request on the wire (a Set slower than this may still be applied: see `reread`). */
  readonly timeoutMs: number;
  /** Configuration page writes: changes queued meanwhile merge into one `update()`. */
  readonly writes: WriteQueue;
  private readonly log: Logger;

  constructor(
    readonly cfg: DeviceConfig,
    opts: DeviceOptions,
  ) {
    super();
    this.id = cfg.id;
    this.log = opts.log;
    this.client =
      opts.clientFactory?.(cfg) ??
      new NvrClient({
        ...deviceClientOptions(cfg, opts.timeoutMs),
        log: (level, msg) => this.log[level](msg),
      });
    const client = this.client;
    this.pollClient = { invoke: (op, data, o) => client.invoke(op, data, { ...o, ...POLL_CALL }) };
    this.repeatClient = { invoke: (op, data, o) => client.invoke(op, data, { ...o, ...REPEATED_POLL_CALL }) };
    this.writes = new WriteQueue((page, batch) => this.writePage(page, batch));
    if (cfg.events) this.facts.events = emptyEventValues();
    this.liveEveryPoll = !cfg.events;
    // An event of a Set reaches us with the next event check (paced), which may hold its answer for a while.
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.echoWindowMs = 3 * cfg.event_interval + this.timeoutMs;
  }

  get name(): string {
    return this.cfg.name;
  }

  /** Channels the bridge publishes for this device (config `channels` applied; no empty slots). */
  channels(): string[] {
    if (this.channelCache?.facts !== this.facts) this.channelCache = { facts: this.facts, ids: channelIds(this.facts, this.cfg.channels) };
    return this.channelCache.ids;
  }

  /** Forget static info: the next poll reads identity and Ranges again (device back online, refresh). */
  invalidate(): void {
    this.loaded = false;
  }

  /**
   * Identity and the Range of every page polled on this recorder (which depends on the page it disarms through, read
   * first when not known yet); `refresh` asks the device again, bypassing caches.
   */
  async load(refresh: boolean): Promise<void> {
    const { sys, dev } = await this.pollRead('identity', 'Get', () => readIdentityPages(this.pollClient));
    if (this.facts.events && this.recorderInputs === undefined) this.recorderInputs = recorderAlarmInputs(dev);
    const disarmPage = this.facts.disarmPage ?? (await this.disarmRead())?.page;
    const ranges = new Map<string, Json | null>();
    await inTurns(polledPages(disarmPage), async (page) => void ranges.set(page, await this.rangeOf(page, refresh)));
    this.facts = { ...this.facts, info: { ...identityFrom(sys, dev) }, ranges };
    this.loaded = true;
    this.structurePending = true;
    this.liveDue = true;
    this.settingsDue = true;
  }

  private async rangeOf(page: string, refresh = false): Promise<Json | null> {
    try {
      // Ranges are cached by core (TTL): on the wire once per five minutes, so not worth a poll priority of their own.
      return await this.pollRead<Json>(page, 'Range', () => this.client.cachedRange(page, { refresh }));
    } catch (err) {
      if (isUnsupported(err)) return null; // R2: no such page
      throw err;
    }
  }

  /**
   * One poll: channel slots, Get of every supported page that publishes something on this recorder (`polledPages`),
   * disarm state, and (when due, see `liveDue`) the live page of each live channel. Throws when the device is not
   * answering.
   */
  async poll(): Promise<void> {
    // Before any read of this poll: a write confirmed after this is newer than all of them.
    const epochsAtStart = new Map(this.epochs);
    this.disarmOfPoll = undefined;
    if (!this.loaded) await this.load(true);
    let channelList: Map<string, boolean> | undefined;
    let onlineKey = '';
    const namesBefore = this.listOf?.names;
    let models = this.facts.channelSlots;
    try {
      models = await this.pollRead('Login/ChannelInfo', 'Get', () => readChannelSlots(this.repeatClient));
      // An unchanged answer gives the same (frozen) models: the list derived from them last time still holds.
      if (this.listOf?.models !== models) {
        // An empty slot (NotConfigured) is no channel: it never gets entities.
        const list = new Map(models.filter((m) => m.configured).map((m) => [m.id, m.online]));
        this.listOf = {
          models,
          list,
          onlineKey: [...list].map(([c, o]) => `${c}:${o ? 1 : 0}`).join(','),
          // The camera names the channel devices carry (a rename on the recorder renames them).
          names: models.map((m) => m.name).join('\n'),
        };
      }
      channelList = this.listOf.list;
      onlineKey = this.listOf.onlineKey;
    } catch (err) {
      if (isOutage(err)) throw err;
      this.reportPageError('Login/ChannelInfo', err);
    }
    // A channel that went on- or offline changes what Range lists: read the Ranges again.
    if (this.onlineKey !== undefined && onlineKey !== this.onlineKey) await this.load(true);
    this.onlineKey = onlineKey;

    const ranges = new Map(this.facts.ranges);
    const gets = new Map(this.facts.gets);
    // Which page the recorder disarms through decides which pages publish anything (read once, then known).
    const disarm = this.facts.disarmPage ? undefined : await this.disarmRead();
    this.disarmOfPoll = undefined;
    const disarmPage = this.facts.disarmPage ?? disarm?.page;
    const due = this.dueNow(polledPages(disarmPage));
    const pages = due.pages;
    for (const page of POLLED_PAGES) if (!polledPages(disarmPage).includes(page)) gets.delete(page);
    const [, polledLive, polledOutputs] = await Promise.all([
      // The answer that told the disarm page is this poll's read of that page.
      inTurns(pages, (page) => this.pollPage(page, ranges, gets, page === disarm?.page ? disarm : undefined)),
      this.liveDue || this.liveEveryPoll ? this.pollLive(channelList, models) : undefined,
      due.outputs ? this.pollAlarmOutputs() : undefined,
    ]);
    if (polledLive) this.liveDue = false;
    this.polled = true;
    // Most polls find nothing new: then the facts keep its identity and nothing downstream runs.
    const prev = this.facts;
    const written = this.keepWritten(epochsAtStart, prev, gets, polledLive);
    const live = polledLive ?? prev.live;
    const list = channelList ?? prev.channelList;
    const listChanged = !sameChannelList(list, prev.channelList) || this.listOf?.names !== namesBefore;
    const rangesChanged = POLLED_PAGES.some((p) => ranges.get(p) !== prev.ranges.get(p));
    const getsChanged = POLLED_PAGES.some((p) => !sameJson(gets.get(p), prev.gets.get(p)));
    const liveChanged = live !== prev.live && !sameJson(Object.fromEntries(live), Object.fromEntries(prev.live));
    const alarmOutputs = polledOutputs && !written.has(ALARM_OUTPUTS) ? polledOutputs : prev.alarmOutputs;
    const alarmOutputNames = alarmOutputs && announcedOutputs(alarmOutputs, prev.alarmOutputNames, list);
    const outputsChanged = !sameJson(alarmOutputs, prev.alarmOutputs) || !sameJson(alarmOutputNames, prev.alarmOutputNames);
    if (!getsChanged) adoptSameAnswers(prev.gets, gets);
    if (!listChanged && !rangesChanged && !getsChanged && !liveChanged && !outputsChanged && disarmPage === prev.disarmPage) return;
    // Spread: what events wrote meanwhile (alarms, disk) stays.
    this.facts = { ...prev, channelList: list, channelSlots: models, ranges, gets, live, disarmPage, alarmOutputs, alarmOutputNames };
    const structure = this.structureChanged() || listChanged || rangesChanged || this.structurePending;
    this.structurePending = false;
    if (structure) this.updateAlarmKeys();
    this.emit('update', { structure });
  }

  /**
   * What writes confirmed since the poll started (`epochsAtStart`) is newer than anything the poll read, whenever it
   * read it: the poll's pages (`gets`) and live states (`live`) take the facts' value (`prev`, the facts as the poll
   * commits) for every page and live channel written meanwhile. Returns the epoch keys written meanwhile.
   */
  private keepWritten(
    epochsAtStart: Map<string, number>,
    prev: DeviceFacts,
    gets: Map<string, Json>,
    live?: Map<string, LiveState>,
  ): Set<string> {
    const written = new Set([...this.epochs].filter(([key, n]) => (epochsAtStart.get(key) ?? 0) !== n).map(([key]) => key));
    for (const key of written) {
      const channel = key.startsWith(LIVE_EPOCH) ? key.slice(LIVE_EPOCH.length) : undefined;
      const page = channel === undefined && prev.gets.get(key);
      if (page) gets.set(key, page);
      const state = channel !== undefined && prev.live.get(channel);
      if (live && state) live.set(channel, state);
    }
    return written;
  }

  /**
   * Every page, except that of the settings pages (SETTINGS_PAGES) one is read per poll in turn, or all when due.
   * The alarm outputs take a turn of their own in that rotation while the device reports its changes as events (the
   * idle budget: no extra request per poll), and are read with every poll without events (as the live pages are).
   */
  private dueNow(pages: readonly string[]): { pages: readonly string[]; outputs: boolean } {
    const settings = pages.filter((p) => SETTINGS_PAGES.has(p));
    const rotation = this.liveEveryPoll || this.noAlarmOutputs ? settings : [...settings, ALARM_OUTPUTS];
    const all = this.settingsDue;
    this.settingsDue = false;
    const turn = rotation.length ? rotation[this.settingsTurn++ % rotation.length] : undefined;
    return {
      pages: all ? pages : pages.filter((p) => !SETTINGS_PAGES.has(p) || p === turn),
      outputs: all || this.liveEveryPoll || turn === ALARM_OUTPUTS,
    };
  }

  /** The next poll reads every settings page (a read asked for on MQTT, a (re)load). */
  readAllSettings(): void {
    this.settingsDue = true;
  }

  /** A page's Range (cached) and Get; `answered`: its Get as read earlier in this poll, not asked for again. */
  private async pollPage(
    page: string,
    ranges: Map<string, Json | null>,
    gets: Map<string, Json>,
    answered?: { data: Json },
  ): Promise<void> {
    // cachedRange re-reads a Range after its TTL: Ranges follow device changes without a restart.
    const range = await this.rangeOf(page);
    ranges.set(page, range);
    const op = findOperation(page, 'Get');
    if (!range || !op) {
      gets.delete(page);
      return;
    }
    try {
      const data =
        answered?.data ??
        ((await this.pollRead(page, 'Get', () => this.repeatClient.invoke(op, findPage(page)?.getRequest ?? {}))) as Json);
      gets.set(page, data);
      this.reportedPageErrors.delete(page);
    } catch (err) {
      if (isOutage(err)) throw err;
      if (isUnsupported(err)) gets.delete(page);
      this.reportPageError(page, err);
    }
  }

  /** Which page the device disarms through (core's rule: Disarming where it has it) and its Get; once a poll. */
  private disarmRead(): Promise<DisarmRead | undefined> {
    this.disarmOfPoll ??= (async () => {
      try {
        return await this.pollRead('disarm', 'Get', () => readDisarmAnswer(this.repeatClient));
      } catch (err) {
        if (isOutage(err)) throw err;
        if (!isUnsupported(err)) this.reportPageError('disarm', err);
        return undefined;
      }
    })();
    return this.disarmOfPoll;
  }

  /** The alarm outputs (ManualAlarm Get, one request); undefined where the device has no such page or it failed. */
  private async pollAlarmOutputs(): Promise<Readonly<Record<string, boolean>> | undefined> {
    if (this.noAlarmOutputs) return undefined;
    try {
      const outputs = await this.pollRead(ALARM_OUTPUTS, 'Get', () => readManualAlarm(this.repeatClient));
      this.reportedPageErrors.delete(ALARM_OUTPUTS);
      return outputs;
    } catch (err) {
      if (isOutage(err)) throw err;
      if (isUnsupported(err)) this.noAlarmOutputs = true;
      else this.reportPageError(ALARM_OUTPUTS, err);
      return undefined;
    }
  }

  /** The live page of every online channel with a floodlight, siren or red/blue light. */
  private async pollLive(list: Map<string, boolean> | undefined, models: DeviceFacts['channelSlots']): Promise<Map<string, LiveState>> {
    const out = new Map<string, LiveState>();
    const channels = [...(list ?? [])]
      .filter(([ch, online]) => {
        const hw = models?.find((m) => m.id === ch)?.hardware;
        return online && (!models || LIVE_HARDWARE.some((part) => hw?.[part])) && (!this.cfg.channels || this.cfg.channels.includes(ch));
      })
      .map(([ch]) => ch);
    // A few at a time, like the pages: 64 channels at once would crowd the device's request queue.
    await inTurns(channels, async (ch) => {
      const key = `${LIVE_EPOCH}${ch}`;
      try {
        const reader = this.liveEveryPoll ? this.repeatClient : this.pollClient;
        out.set(ch, await this.pollRead(key, 'Get', () => readLive(reader, ch)));
        this.reportedPageErrors.delete(key);
      } catch (err) {
        if (isOutage(err)) throw err;
        if (!isUnsupported(err) && !(err instanceof DeviceError && err.error_code === 'no_support')) this.reportPageError(key, err);
      }
    });
    return out;
  }

  /**
   * Every device read of a poll goes through here (the reads themselves carry `POLL_CALL`). At debug level each
   * read is logged with its duration (never its body).
   */
  private async pollRead<T>(page: string, op: string, call: () => Promise<T>): Promise<T> {
    if (!this.log.enabled('debug')) return call();
    const t0 = performance.now();
    try {
      const out = await call();
      this.log.debug(`poll ${page}/${op}: ${Math.round(performance.now() - t0)} ms`);
      return out;
    } catch (err) {
      this.log.debug(`poll ${page}/${op}: failed after ${Math.round(performance.now() - t0)} ms: ${errorText(err)}`);
      throw err;
    }
  }

  /**
   * Alarm types an earlier run announced for the channels (the broker's retained discovery, read at start): they stay
   * known, as the types the device reported since the bridge started do (no entity removed and created again).
   */
  rememberAlarmKeys(announced: ReadonlyMap<string, readonly AlarmType[]>): void {
    const ev = this.facts.events;
    if (!ev) return;
    const keys = new Map(ev.keys);
    for (const [ch, types] of announced) {
      const had = keys.get(ch) ?? [];
      if (types.every((t) => had.includes(t))) continue;
      keys.set(
        ch,
        ALARM_TYPE_KEYS.filter((k) => had.includes(k) || types.includes(k)),
      );
    }
    if (keys.size !== ev.keys.size || [...keys].some(([ch, k]) => ev.keys.get(ch) !== k))
      this.facts = { ...this.facts, events: { ...ev, keys } };
  }

  /** Alarm keys per channel (the alarm entities) from the channel slots; with events on. */
  private updateAlarmKeys(): void {
    const ev = this.facts.events;
    if (!ev) return;
    const keys = alarmKeys(this.channels(), this.facts.channelSlots, this.recorderInputs ?? 0, ev.keys, (ch) =>
      channelOnline(this.facts, ch),
    );
    this.facts = { ...this.facts, events: { ...ev, keys } };
  }

  private reportPageError(page: string, err: unknown): void {
    const text = errorText(err);
    if (this.reportedPageErrors.get(page) === text) return;
    this.reportedPageErrors.set(page, text);
    this.log.warn(`${page}: ${text}`);
    this.emit('event', 'device_error', { device: this.id, page, error: text, error_code: (err as DeviceError).error_code });
  }

  private bump(key: string): void {
    this.epochs.set(key, (this.epochs.get(key) ?? 0) + 1);
  }

  /** Write executor of the page queue: merged changes through `client.update()`, a raw Set as given; read back. */
  private async writePage(page: string, batch: Job[]): Promise<Written> {
    this.log.debug(`write ${page}: ${batch.length} queued change(s)`);
    let readBack: Json;
    let late: DeviceError | undefined;
    if (batch.length === 1 && batch[0].kind === 'raw') {
      await this.client.set(page, batch[0].data);
      this.bump(page);
      try {
        readBack = (await this.readFresh(page)) ?? {};
      } catch (err) {
        if (POLLED_PAGES.includes(page)) throw err;
        return { readBack: {} }; // a page without Get: the Set was accepted, nothing to read back
      }
    } else {
      const changes = batch.flatMap((j) => (j.kind === 'changes' ? j.changes : []));
      // A membership applies to the list the device holds now, read here inside the queue (not the last poll's).
      const current = changes.some((c) => c.member !== undefined) ? await this.readFresh(page) : undefined;
      readBack = await this.client.update(page, mergeChanges(changes, current), { onAppliedLate: (err) => (late = err) });
      this.bump(page);
    }
    if (POLLED_PAGES.includes(page)) this.keepRead(page, readBack);
    return { readBack, late };
  }

  /**
   * The page read again now, into the facts (published like a poll's read): a Set
   * that timed out may have been applied by the device after its read-back.
   */
  async reread(page: string): Promise<Json | undefined> {
    const data = await this.readFresh(page);
    if (data === undefined) return undefined;
    this.bump(page);
    if (POLLED_PAGES.includes(page)) this.keepRead(page, data);
    return data;
  }

  /** A page's read (a write's read-back, a read again) into the facts, published like a poll's. */
  private keepRead(page: string, data: Json): void {
    const gets = new Map(this.facts.gets);
    gets.set(page, data);
    this.facts = { ...this.facts, gets };
    this.emit('update', { structure: this.structureChanged() });
  }

  /** The page's Get from the device now (not coalesced with a poll's read); undefined for a page without Get. */
  private async readFresh(page: string): Promise<Json | undefined> {
    const op = findOperation(page, 'Get');
    return op ? ((await this.client.invoke(op, findPage(page)?.getRequest ?? {}, { fresh: true })) as Json) : undefined;
  }

  /**
   * Switch the light, siren or red/blue light of a channel now; the state read back is the facts'. While later
   * live writes of the channel are pending (Home Assistant's light sends its brightness, then ON), the read-back
   * is kept in the facts but published only with the last one's: a burst of commands shows once, as confirmed.
   */
  async writeLive(channel: string, change: LiveChange, opts: LateOptions = {}): Promise<LiveState> {
    this.liveWrites.set(channel, (this.liveWrites.get(channel) ?? 0) + 1);
    try {
      const state = await this.client.setLive(channel, change, opts);
      this.liveConfirmedAt.set(channel, performance.now());
      this.applyLive(channel, state, (this.liveWrites.get(channel) ?? 0) > 1);
      return state;
    } finally {
      const left = (this.liveWrites.get(channel) ?? 1) - 1;
      if (left > 0) this.liveWrites.set(channel, left);
      else {
        this.liveWrites.delete(channel);
        // The last write failed after earlier ones were held back: what they confirmed goes out now.
        if (this.liveHeld.delete(channel)) this.emit('update', { structure: this.structureChanged() });
      }
    }
  }

  /**
   * What a channel's live page says now, from a command's read-back or a `{kind:'live'}` event (the device's own
   * `Floodlight_AudioAlarm` report): merged into the facts (`facts.live`, the one place live state lives) and published
   * (`hold`: not yet, a later write of the channel is pending).
   */
  applyLive(channel: string, change: Partial<LiveState>, hold = false): void {
    // A poll read that left before this is older: it must not undo it.
    this.bump(`${LIVE_EPOCH}${channel}`);
    const live = new Map(this.facts.live);
    const before = live.get(channel) ?? { channel };
    const after = { ...before, ...Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined)) };
    if (sameJson(before, after) && live.has(channel)) {
      if (!hold && this.liveHeld.delete(channel)) this.emit('update', { structure: this.structureChanged() });
      return;
    }
    live.set(channel, after);
    this.facts = { ...this.facts, live };
    if (hold) this.liveHeld.add(channel);
    else {
      this.liveHeld.delete(channel);
      this.emit('update', { structure: this.structureChanged() });
    }
  }

  /**
   * The device's own report of a channel's live state (a `Floodlight_AudioAlarm` event). Events arrive with the
   * next event check, after the read-back of the write that caused them: one saying what the facts already say
   * is applied, one contradicting a state confirmed moments ago (or a write still pending) may be older than it,
   * so the live page is read again (after the pending writes) and its answer applied instead.
   */
  reportedLive(channel: string, change: Partial<LiveState>): Promise<void> {
    const current = this.facts.live.get(channel);
    const differs = Object.entries(change).some(([k, v]) => v !== undefined && current?.[k as keyof LiveState] !== v);
    const confirmedAt = this.liveConfirmedAt.get(channel);
    const recent = this.liveWrites.has(channel) || (confirmedAt !== undefined && performance.now() - confirmedAt < this.echoWindowMs);
    if (!differs || !recent) {
      this.applyLive(channel, change);
      return Promise.resolve();
    }
    let confirm = this.liveConfirms.get(channel);
    if (!confirm) {
      confirm = this.client
        .liveAfterWrites(channel)
        .then(
          (state) => this.applyLive(channel, state),
          (err: unknown) => this.log.debug(`live ${channel}: reading back after an event failed: ${errorText(err)}`),
        )
        .finally(() => this.liveConfirms.delete(channel));
      this.liveConfirms.set(channel, confirm);
    }
    return confirm;
  }

  /** The device has no event check (Event/Check): live changes are only seen by reading the live pages every poll. */
  readLiveEveryPoll(): void {
    this.liveEveryPoll = true;
  }

  /** Disarm (true) or arm (false) through the page the device has; the value read back lands in the facts. */
  async writeDisarmed(disarmed: boolean, opts: LateOptions = {}): Promise<boolean | undefined> {
    return this.applyDisarm(await this.client.setDisarmed(disarmed, opts));
  }

  /** The disarm state read again (a Set that timed out may still be carried out); it lands in the facts. */
  async rereadDisarmed(): Promise<boolean | undefined> {
    return this.applyDisarm(await this.client.disarmState());
  }

  private applyDisarm(s: DisarmState): boolean | undefined {
    this.bump(s.page);
    const gets = new Map(this.facts.gets);
    const data = { ...(gets.get(s.page) ?? {}) };
    if (s.disarmed !== undefined) data[DISARM_MEMBER[s.page]] = s.disarmed;
    gets.set(s.page, data);
    this.facts = { ...this.facts, gets, disarmPage: s.page };
    this.emit('update', { structure: this.structureChanged() });
    return s.disarmed;
  }

  /** Switch one alarm output (core reads, sends only a change, reads back); the read-back lands in the facts. */
  async writeAlarmOutput(name: string, on: boolean): Promise<boolean | undefined> {
    const outputs = await this.client.setManualAlarm({ [name]: on });
    this.bump(ALARM_OUTPUTS);
    if (!sameJson(outputs, this.facts.alarmOutputs)) {
      const names = announcedOutputs(outputs, this.facts.alarmOutputNames, this.facts.channelList);
      this.facts = { ...this.facts, alarmOutputs: outputs, alarmOutputNames: names };
      this.emit('update', { structure: this.structureChanged() });
    }
    return outputs[name];
  }

  /** The disks as last read (features/storage/): published with the device's state; entities follow the disks. */
  applyStorage(storage: Storage): void {
    const prev = this.facts.storage;
    if (sameJson(prev, storage)) return;
    const shape = (s?: Storage) => JSON.stringify(s?.disks.map((d) => [d.id, d.type, d.status !== undefined]) ?? null);
    this.facts = { ...this.facts, storage };
    this.emit('update', {
      structure: shape(prev) !== shape(storage) || (prev?.overwrite === undefined) !== (storage.overwrite === undefined),
    });
  }

  /** Which channels record now (features/recordings/); the entities change when the channels reported change. */
  applyRecording(recording: Readonly<Record<string, boolean>>): void {
    const prev = this.facts.recording;
    if (sameJson(prev, recording)) return;
    const shape = (r?: Readonly<Record<string, boolean>>) => JSON.stringify(r ? Object.keys(r).sort() : null);
    this.facts = { ...this.facts, recording };
    this.emit('update', { structure: shape(prev) !== shape(recording) });
  }

  /** Records what decides the entities besides Ranges and the channel list; true when that changed. */
  private structureChanged(): boolean {
    // A value outside its Range widens the announced bounds: it changes the entities too.
    const sig = textDigest(structureSignature(this.facts) + outsideRangeSignature(this.facts, this.channels()));
    const changed = sig !== this.structure;
    this.structure = sig;
    return changed;
  }

  /** `logoutMs`: see NvrClient.close (the bridge's stop bound). */
  async close(opts: { logoutMs?: number } = {}): Promise<void> {
    this.writes.close();
    if (this.client.state === 'connected' && (opts.logoutMs ?? 1) > 0) this.log.info('logging out');
    try {
      await this.client.close(opts);
    } catch (err) {
      this.log.debug(`logout: ${errorText(err)}`);
    }
  }
}
