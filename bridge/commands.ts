/**
 * Commands: `<base>/<dev>[/<ch>]/set` (JSON object, any subset of the state keys), `.../set/<key>` (a bare
 * value as Home Assistant sends it: ON/OFF, true/false, a number, an option, DISARM/ARM_AWAY) and
 * `.../get` (read the device now and publish).
 *
 * Every value is checked against the device's Range before anything is sent (R1, R2). A refused command
 * leaves the device untouched and is reported on `<base>/bridge/event`:
 * `{"type":"command_refused","data":{"topic","reason",...}}`. How an accepted command is written follows from its
 * row's source: configuration pages through the page's write queue (`client.update()`), live rows through
 * `client.setLive()` (see live-commands.ts), the alarm panel through `client.setDisarmed()`.
 */
import { channelFromSlug, DeviceError, findPage, metaKeysOf, validateAgainstRange, type LiveChange } from '../core';
import { Refusal, type BridgeContext, type DeviceHandle } from './context';
import { errorText } from './log';
import { planLive, type LivePlan } from './live-commands';
import { bareValue, clip, coerce, parseObject, shownViolations, type Quote } from './payload';
import { channelOnline, rowDescriptor, rowSupported, rowValue, valueAt, type Json } from './state';
import { isConfigRow, isLiveRow, isReadOnlyRow, rowsFor, type ConfigRow, type Level, type LiveRow, type Row } from './table';
import type { ParsedTopic } from './topics';
import { changeField, readBackValue, setAt, withMember, type Change } from './write-queue';

type SetTopic = Extract<ParsedTopic, { kind: 'set' }>;
type GetTopic = Extract<ParsedTopic, { kind: 'get' }>;

export function lookupDevice(ctx: BridgeContext, id: string): DeviceHandle {
  const h = ctx.devices.get(id);
  if (!h) throw new Refusal(`unknown device "${ctx.quote(id)}"`, { device: ctx.quote(id) });
  return h;
}

/** How long a command that arrives before its device's first poll waits for it (then it is refused). */
const FIRST_POLL_WAIT_MS = 15_000;

/** Commands and requests need a device that answers. */
export function requireOnline(h: DeviceHandle, details: Json = {}): void {
  if (h.online) return;
  const why = !h.started ? 'has not answered yet (starting)' : 'is offline';
  throw new Refusal(`device ${h.device.id} ${why}`, { device: h.device.id, ...details });
}

/** `ch1` -> `CH1`, when the device has that channel. */
export function lookupChannel(h: DeviceHandle, slug: string, quote: Quote = clip): string {
  const ch = channelFromSlug(slug);
  if (!ch || slug !== slug.toLowerCase() || !h.device.channels().includes(ch)) {
    throw new Refusal(`unknown channel "${quote(slug)}" on device ${h.device.id}`, { device: h.device.id, channel: quote(slug) });
  }
  return ch;
}

/** A checked command key: what to write and how (by the row's source). */
export type Planned =
  | { kind: 'page'; row: ConfigRow; change: Change }
  | { kind: 'live'; row: LiveRow; plan: LivePlan }
  | { kind: 'disarm'; row: Row; value: boolean };

/** Checks one key of a command against the table and the device's Range (or live page); returns what to write. */
export function checkKey(
  h: DeviceHandle,
  level: Level,
  channel: string | undefined,
  key: string,
  raw: unknown,
  quote: Quote = clip,
): Planned {
  const rows = rowsFor(level, key);
  if (!rows.length) {
    const other = rowsFor(level === 'device' ? 'channel' : 'device', key)[0];
    const hint = other
      ? ` (it is a ${other.level} key: use the ${other.level === 'channel' ? '<device>/<channel>' : '<device>'}/set topic)`
      : '';
    throw new Refusal(`unknown key "${quote(key)}"${hint}`, { key: quote(key) });
  }
  const model = h.device.model;
  const row = rows.find((r) => rowSupported(model, r, channel));
  if (rows.every(isReadOnlyRow)) throw new Refusal(`${key} is read-only`, { key });
  if (!row) {
    throw new Refusal(`${key} is not supported by ${h.device.id}${channel ? ` ${channel}` : ''} (absent from its Range)`, { key });
  }
  if (isLiveRow(row)) return { kind: 'live', row, plan: planLive(model, row, channel!, raw) };
  if (row.source.kind === 'disarm') return { kind: 'disarm', row, value: coerce(row, 'bool', raw, rowValue(model, row), quote) as boolean };
  if (!isConfigRow(row)) throw new Refusal(`${key} is read-only`, { key });
  const desc = rowDescriptor(model, row, channel);
  if (!desc) throw new Refusal(`${key} is not supported by ${h.device.id}${channel ? ` ${channel}` : ''} (absent from its Range)`, { key });
  if (desc.mode === 'r') throw new Refusal(`${key} is read-only on this device (Range mode "r")`, { key });
  const get = model.gets.get(row.source.page);
  const payload: Json = {};
  let change: Change;
  if (row.source.kind === 'member') {
    // ON/OFF adds/removes the channel; the Range check sees the list as it would be now (R1).
    const path = row.source.field;
    const list = valueAt(get, path);
    const members = Array.isArray(list) ? list : [];
    const value = coerce(row, 'bool', raw, members.includes(channel), quote) as boolean;
    setAt(payload, path, withMember(members, channel!, value));
    change = { path, value, member: channel };
  } else {
    const path = [...(row.level === 'channel' ? ['channel_info', channel!] : []), ...row.source.field];
    const value = coerce(row, desc.type, raw, valueAt(get, path), quote);
    setAt(payload, path, value);
    change = { path, value, channel };
  }
  const range = model.ranges.get(row.source.page);
  const def = findPage(row.source.page);
  const violations = range ? validateAgainstRange(payload, range, { metaKeys: def ? metaKeysOf(def) : [] }) : [];
  if (violations.length) {
    const shown = shownViolations(violations, raw, quote);
    throw new Refusal(`${key}: ${shown.map((v) => v.message).join('; ')}`, { key, violations: shown });
  }
  return { kind: 'page', row, change };
}

export class Commands {
  /** Latest command per written field (`<device>/<page>/<path>`, `<device>/live/<channel>/<field>`): only its outcome is reported. */
  private readonly latest = new Map<string, number>();
  private seq = 0;
  /** Sirens switched on with a duration: the timer that switches each off again, by `<device>/<channel>`. */
  private readonly sirenTimers = new Map<string, NodeJS.Timeout>();

  constructor(private readonly ctx: BridgeContext) {}

  /** Stopping: no siren timer fires any more. */
  close(): void {
    for (const t of this.sirenTimers.values()) clearTimeout(t);
    this.sirenTimers.clear();
  }

  private refuse(topic: string, err: unknown): void {
    const reason = err instanceof Refusal ? err.reason : errorText(err);
    const details = err instanceof Refusal ? err.details : {};
    const shown = this.ctx.quote(topic, 256);
    this.ctx.log.info(`command refused on ${shown}: ${reason}`);
    this.ctx.event('command_refused', { topic: shown, reason, ...details });
  }

  /** `set` and `get` topics. Never throws; every problem becomes an event. */
  handle(topic: string, parsed: SetTopic | GetTopic, payload: Buffer, retained: boolean): void {
    try {
      if (this.ctx.stopping) throw new Refusal('the bridge is stopping');
      if (retained) throw new Refusal('retained command ignored (commands must not be retained: they would run again on every restart)');
      const h = lookupDevice(this.ctx, parsed.device);
      // Delivered by the broker right after (re)connecting, before the device's first poll: wait for it.
      if (!h.started) {
        this.ctx.log.debug(`command on ${this.ctx.quote(topic, 256)}: waiting for ${h.id} to answer its first poll`);
        void this.ctx.track(h.ready(FIRST_POLL_WAIT_MS).then(() => this.run(topic, h, parsed, payload)));
        return;
      }
      this.run(topic, h, parsed, payload);
    } catch (err) {
      this.refuse(topic, err);
    }
  }

  private run(topic: string, h: DeviceHandle, parsed: SetTopic | GetTopic, payload: Buffer): void {
    try {
      if (this.ctx.stopping) throw new Refusal('the bridge is stopping');
      this.ctx.log.debug(`command ${parsed.kind} on ${this.ctx.quote(topic, 256)} (${payload.length} bytes)`);
      if (parsed.kind === 'set') requireOnline(h);
      const channel = parsed.channel !== undefined ? lookupChannel(h, parsed.channel, this.ctx.quote) : undefined;
      if (parsed.kind === 'get') return this.get(topic, h, channel);
      if (channel && !channelOnline(h.device.model, channel)) {
        throw new Refusal(`channel ${channel} of ${h.device.id} is offline`, { device: h.device.id, channel });
      }
      const input: Json = parsed.key !== undefined ? { [parsed.key]: bareValue(payload) } : parseObject(payload);
      const keys = Object.keys(input);
      if (!keys.length) throw new Refusal('nothing to set (empty object)');
      const level: Level = channel ? 'channel' : 'device';
      // Every key is checked before anything is written: one bad key refuses the whole command.
      const planned = keys.map((key) => checkKey(h, level, channel, key, input[key], this.ctx.quote));
      const byPage = new Map<string, Change[]>();
      const live: LivePlan = { change: {} };
      for (const p of planned) {
        if (p.kind === 'page') byPage.set(p.row.source.page, [...(byPage.get(p.row.source.page) ?? []), p.change]);
        else if (p.kind === 'live') {
          Object.assign(live.change, p.plan.change);
          live.durationS ??= p.plan.durationS;
        } else void this.ctx.track(this.disarm(topic, h, p.value));
      }
      for (const [page, changes] of byPage) void this.ctx.track(this.write(topic, h, page, changes));
      if (Object.keys(live.change).length) void this.ctx.track(this.live(topic, h, channel!, live));
    } catch (err) {
      this.refuse(topic, err);
    }
  }

  /** `get`: a read of the device (coalesced with every other read asked for meanwhile), then the state. */
  private get(topic: string, h: DeviceHandle, channel?: string): void {
    void this.ctx.track(
      h.read().then(
        () => this.ctx.publishState(h, { force: true, channel }),
        (err) => this.ctx.event('command_failed', { topic, device: h.device.id, reason: errorText(err) }),
      ),
    );
  }

  private failed(topic: string, h: DeviceHandle, err: unknown): void {
    const e = err instanceof DeviceError ? { error_code: err.error_code, violations: err.violations as never } : {};
    // Aborted by the logout of a stopping bridge: it may or may not have reached the device.
    const reason = `${this.ctx.stopping ? 'the bridge stopped before the device confirmed it: ' : ''}${errorText(err)}`;
    this.ctx.log.warn(`command on ${topic} failed: ${reason}`);
    this.ctx.event('command_failed', { topic, device: h.device.id, reason, ...e });
  }

  private notConfirmed(topic: string, h: DeviceHandle, field: string, requested: unknown, reported: unknown): void {
    this.ctx.event('command_not_confirmed', { topic, device: h.device.id, field, requested, reported: reported ?? null });
  }

  /**
   * Numbers a command and makes it the latest on each of its fields (`latest`): a later command on a field supersedes
   * this one's report. `release` forgets the fields this command is still the latest on.
   */
  private claim(fields: readonly string[]): { isLatest: (field: string) => boolean; release: () => void } {
    const seq = ++this.seq;
    for (const f of fields) this.latest.set(f, seq);
    const isLatest = (f: string) => this.latest.get(f) === seq;
    return {
      isLatest,
      release: () => {
        for (const f of fields) if (isLatest(f)) this.latest.delete(f);
      },
    };
  }

  private async write(topic: string, h: DeviceHandle, page: string, changes: Change[]): Promise<void> {
    // Claimed before queueing: a later command on the same field supersedes this one's report.
    const fieldKey = (c: Change) => `${h.id}/${page}/${changeField(c)}`;
    const claim = this.claim(changes.map(fieldKey));
    const isLatest = (c: Change) => claim.isLatest(fieldKey(c));
    try {
      const readBack = await h.device.writes.enqueue(page, { kind: 'changes', changes });
      for (const c of changes) {
        const got = readBackValue(readBack, c);
        if (got !== c.value && isLatest(c)) this.notConfirmed(topic, h, changeField(c), c.value, got);
      }
    } catch (err) {
      this.failed(topic, h, err);
    } finally {
      claim.release();
    }
  }

  /**
   * Live change through `setLive` (core serialises a channel's live writes); a siren duration arms its off timer.
   * Like page writes, only the latest command per live field reports, and only the latest siren command arms a timer
   * (one that arrived while this one was still on the wire has replaced it).
   */
  private async live(topic: string, h: DeviceHandle, channel: string, plan: LivePlan): Promise<void> {
    const fields = Object.keys(plan.change) as Array<keyof LiveChange>;
    const fieldKey = (k: keyof LiveChange) => `${h.id}/live/${channel}/${k}`;
    const claim = this.claim(fields.map(fieldKey));
    const isLatest = (k: keyof LiveChange) => claim.isLatest(fieldKey(k));
    const timerKey = `${h.id}/${channel}`;
    // Any later siren command on the channel replaces the pending switch-off.
    if (plan.change.siren !== undefined) {
      clearTimeout(this.sirenTimers.get(timerKey));
      this.sirenTimers.delete(timerKey);
    }
    try {
      const state = await h.device.writeLive(channel, plan.change);
      for (const k of fields) {
        if (state[k] !== plan.change[k] && isLatest(k)) this.notConfirmed(topic, h, `live.${channel}.${k}`, plan.change[k], state[k]);
      }
      if (plan.durationS !== undefined && state.siren === true && isLatest('siren') && !this.ctx.stopping) {
        const timer = setTimeout(() => {
          this.sirenTimers.delete(timerKey);
          if (this.ctx.stopping) return;
          this.ctx.log.debug(`siren ${h.id} ${channel}: duration over, switching off`);
          void this.ctx.track(h.device.writeLive(channel, { siren: false }).catch((err: unknown) => this.failed(topic, h, err)));
        }, plan.durationS * 1000);
        this.sirenTimers.set(timerKey, timer);
      }
    } catch (err) {
      this.failed(topic, h, err);
    } finally {
      claim.release();
    }
  }

  private async disarm(topic: string, h: DeviceHandle, value: boolean): Promise<void> {
    try {
      const got = await h.device.writeDisarmed(value);
      if (got !== value) this.notConfirmed(topic, h, 'disarmed', value, got);
    } catch (err) {
      this.failed(topic, h, err);
    }
  }
}
