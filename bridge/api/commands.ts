/**
 * Commands: `<base>/<dev>[/<ch>]/set` (JSON object, any subset of the state keys), `.../set/<key>` (a bare
 * value as Home Assistant sends it: ON/OFF, true/false, a number, an option, DISARM/ARM_AWAY) and
 * `.../get` (read the device now and publish).
 *
 * Every value is checked against the device's Range before anything is sent (R1, R2). A refused command
 * leaves the device untouched and is reported on `<base>/bridge/event`:
 * `{"type":"command_refused","data":{"topic","reason",...}}`. A refused, failed or unconfirmed command of a known
 * device is also said on its `command_error` topic (Home Assistant's "Command error" event entity), and the state
 * it concerns is published again at once, so that Home Assistant shows what the device holds, not what was asked. How an accepted command is written follows from its
 * row's source: configuration pages through the page's write queue (`client.update()`), live rows through
 * `client.setLive()` (see live-commands.ts), the alarm panel through `client.setDisarmed()`.
 */
import { channelFromSlug, DeviceError, type LiveChange } from '../../core';
import { leftUnanswered } from '../../core/transport';
import type { Quoter } from '../../core/quote';
import { SwitchOffTimers } from '../../core/switch-off';
import { checkCode, panelCommand } from '../homeassistant/alarm-code';
import type { CommandErrorType } from '../homeassistant/command-error';
import type { BridgeContext } from './context';
import { notOffered, Refusal, shownKey } from '../device/refusal';
import type { DeviceRuntime } from '../device/runtime';
import { errorText } from '../base/log';
import type { LivePlan } from '../device/live-commands';
import { bareValue, parseObject } from '../device/payload';
import { planRow, rowSupported, type Planned } from '../device/sources';
import { channelOnline, type Json } from '../device/state';
import { isReadOnlyRow, rowsFor, type Level } from '../device/table';
import type { ParsedTopic } from '../mqtt/topics';
import { changeField, readBackValue, type Change } from '../device/write-queue';

type SetTopic = Extract<ParsedTopic, { kind: 'set' }>;
type GetTopic = Extract<ParsedTopic, { kind: 'get' }>;

export function lookupDevice(ctx: BridgeContext, id: string): DeviceRuntime {
  const h = ctx.devices.get(id);
  if (!h) throw new Refusal(`unknown device "${ctx.quoter.quote(id)}"`, { device: ctx.quoter.quote(id) });
  return h;
}

/** How long a command that arrives before its device's first poll waits for it (then it is refused). */
const FIRST_POLL_WAIT_MS = 15_000;

/** Commands and requests need a device that answers. */
export function requireOnline(h: DeviceRuntime, details: Json = {}): void {
  if (h.online) return;
  const why = !h.started ? 'has not answered yet (starting)' : 'is offline';
  throw new Refusal(`device ${h.device.id} ${why}`, { device: h.device.id, ...details });
}

/** `ch1` -> `CH1`, when the device has that channel. */
function lookupChannel(h: DeviceRuntime, slug: string, q: Quoter): string {
  const ch = channelFromSlug(slug);
  if (!ch || slug !== slug.toLowerCase() || !h.device.channels().includes(ch)) {
    throw new Refusal(`unknown channel "${q.quote(slug)}" on device ${h.device.id}`, { device: h.device.id, channel: q.quote(slug) });
  }
  return ch;
}

/** Checks one key of a command against the table and the device's Range (or live page); returns what to write. */
function checkKey(h: DeviceRuntime, level: Level, channel: string | undefined, key: string, raw: unknown, q: Quoter): Planned {
  const rows = rowsFor(level, key);
  if (!rows.length) {
    const other = rowsFor(level === 'device' ? 'channel' : 'device', key)[0];
    const hint = other
      ? ` (it is a ${other.level} key: use the ${other.level === 'channel' ? '<device>/<channel>' : '<device>'}/set topic)`
      : '';
    throw new Refusal(`unknown key "${q.quote(key)}"${hint}`, { key: q.quote(key) });
  }
  const facts = h.device.facts;
  const row = rows.find((r) => rowSupported(facts, r, channel));
  if (rows.every(isReadOnlyRow)) throw new Refusal(`${shownKey(rows[0])} is read-only`, { key });
  if (!row) throw notOffered(rows[0], h.device.id, channel);
  if (row.source.kind === 'disarm') {
    // The code (where the config sets one) is checked first: a wrong code learns nothing about the command.
    const { action, code } = panelCommand(key, raw);
    checkCode(key, h.cfg.alarm_code, code);
    return planRow(row, { facts: facts, device: h.device.id, channel, raw: action, q });
  }
  return planRow(row, { facts: facts, device: h.device.id, channel, raw, q });
}

/** What a command was aimed at, as far as it is known: the device, its channel, the key(s) being handled. */
interface Target {
  h?: DeviceRuntime;
  channel?: string;
  keys: string[];
}

type PagePlan = Extract<Planned, { kind: 'page' }>;

/** Retained commands remembered as refused (a flood of distinct topics forgets the oldest). */
const RETAINED_REFUSALS_KEPT = 1000;

/** How long refusals are gathered before the states they concern are republished (see Commands.republish). */
const SNAP_BACK_MS = 100;

/**
 * Command keys a part owns outside the table (PTZ: `set/ptz`, `set/ptz_preset`): `plan` checks the value now (throws
 * a Refusal, nothing sent) and returns the work; the work may still refuse (a Refusal) or fail.
 */
export interface KeyedCommands {
  owns(key: string): boolean;
  plan(h: DeviceRuntime, channel: string | undefined, key: string, raw: unknown): () => Promise<void>;
}

export class Commands {
  /** Latest command per written field (`<device>/<page>/<path>`, `<device>/live/<channel>/<field>`): only its outcome is reported. */
  private readonly latest = new Map<string, number>();
  private seq = 0;
  /** Switches (sirens) switched on with a duration: the timer that switches each off again, by `<device>/<channel>/<control>`. */
  private readonly offTimers = new SwitchOffTimers();
  /** Reads again of Sets that timed out (see `recheck`), due once the device's deadline passed once more. */
  private readonly rechecks = new Set<NodeJS.Timeout>();
  /**
   * Retained commands refused, by topic (their payload): a broker hands one over more than once (queued for a
   * persistent session, and again when the bridge subscribes: Mosquitto), and it is refused once while it stays.
   */
  private readonly refusedRetained = new Map<string, string>();

  constructor(
    private readonly ctx: BridgeContext,
    private readonly keyed?: KeyedCommands,
  ) {}

  /** Stopping: no switch-off timer fires any more. */
  close(): void {
    this.offTimers.clear();
    for (const t of this.rechecks) clearTimeout(t);
    this.rechecks.clear();
    clearTimeout(this.snapTimer);
    this.snapBack.clear();
  }

  /**
   * The states that refused or failed commands concern, republished once per device/channel after a short gather:
   * a flood of refused commands costs one state message per channel, not one per command (a broker's queue for a
   * slow subscriber would otherwise overflow and drop other messages, responses included).
   */
  private readonly snapBack = new Map<string, { h: DeviceRuntime; channel?: string }>();
  private snapTimer?: NodeJS.Timeout;

  private republish(h: DeviceRuntime, channel: string | undefined): void {
    this.snapBack.set(`${h.id}/${channel ?? ''}`, { h, channel });
    this.snapTimer ??= setTimeout(() => {
      this.snapTimer = undefined;
      const due = [...this.snapBack.values()];
      this.snapBack.clear();
      for (const t of due)
        if (t.h.device.facts.info) this.ctx.publishState(t.h, { force: true, channel: t.channel, deviceOnly: !t.channel });
    }, SNAP_BACK_MS);
  }

  /** Reports a refusal; whatever its reason and details quote, no configured password leaves (redacted here). */
  private refuse(topic: string, err: unknown, target: Target): void {
    const q = this.ctx.quoter;
    const reason = q.redact(err instanceof Refusal ? err.reason : errorText(err));
    const details = q.redactDeep(err instanceof Refusal ? err.details : {});
    const shown = q.quote(topic, 256);
    this.ctx.log.info(`command refused on ${shown}: ${reason}`);
    this.ctx.event('command_refused', { topic: shown, reason, ...details });
    this.report('refused', target, reason);
  }

  /**
   * The device's `command_error` (key and reason quoted: they may repeat what was sent), then its state again: the
   * entity that was commanded snaps back to what the device holds.
   */
  private report(type: CommandErrorType, { h, channel, keys }: Target, reason: string): void {
    if (!h) return;
    const key = keys.length ? this.ctx.quoter.quote(keys.join(',')) : null;
    this.ctx.commandError(h.id, { event_type: type, key, channel: channel ?? null, reason: this.ctx.quoter.quote(reason, 512) });
    this.republish(h, channel);
  }

  /** `set` and `get` topics. Never throws; every problem becomes an event. */
  handle(topic: string, parsed: SetTopic | GetTopic, payload: Buffer, retained: boolean): void {
    const target: Target = { h: this.ctx.devices.get(parsed.device), keys: parsed.kind === 'set' && parsed.key ? [parsed.key] : [] };
    try {
      if (this.ctx.stopping) throw new Refusal('the bridge is stopping');
      if (retained) {
        const body = payload.toString('latin1');
        if (this.refusedRetained.get(topic) === body) return;
        if (this.refusedRetained.size >= RETAINED_REFUSALS_KEPT) this.refusedRetained.delete(this.refusedRetained.keys().next().value!);
        this.refusedRetained.set(topic, body);
        throw new Refusal('retained command ignored (commands must not be retained: they would run again on every restart)');
      }
      this.refusedRetained.delete(topic);
      const h = lookupDevice(this.ctx, parsed.device);
      // Delivered by the broker right after (re)connecting, before the device's first poll: wait for it.
      if (!h.started) {
        this.ctx.log.debug(`command on ${this.ctx.quoter.quote(topic, 256)}: waiting for ${h.id} to answer its first poll`);
        void this.ctx.track(h.ready(FIRST_POLL_WAIT_MS).then(() => this.run(topic, h, parsed, payload)));
        return;
      }
      this.run(topic, h, parsed, payload);
    } catch (err) {
      this.refuse(topic, err, target);
    }
  }

  private run(topic: string, h: DeviceRuntime, parsed: SetTopic | GetTopic, payload: Buffer): void {
    const target: Target = { h, keys: parsed.kind === 'set' && parsed.key ? [parsed.key] : [] };
    try {
      if (this.ctx.stopping) throw new Refusal('the bridge is stopping');
      this.ctx.log.debug(`command ${parsed.kind} on ${this.ctx.quoter.quote(topic, 256)} (${payload.length} bytes)`);
      if (parsed.kind === 'set') requireOnline(h);
      const channel = parsed.channel !== undefined ? lookupChannel(h, parsed.channel, this.ctx.quoter) : undefined;
      target.channel = channel;
      if (parsed.kind === 'get') return this.get(topic, h, channel);
      if (channel && !channelOnline(h.device.facts, channel)) {
        throw new Refusal(`channel ${channel} of ${h.device.id} is offline`, { device: h.device.id, channel });
      }
      const input: Json = parsed.key !== undefined ? { [parsed.key]: bareValue(payload) } : parseObject(payload);
      const keys = Object.keys(input);
      if (!keys.length) throw new Refusal('nothing to set (empty object)');
      const level: Level = channel ? 'channel' : 'device';
      // Every key is checked before anything is written: one bad key refuses the whole command.
      const owned: Array<[string, () => Promise<void>]> = [];
      const planned = keys.flatMap((key) => {
        target.keys = [key];
        if (this.keyed?.owns(key)) {
          owned.push([key, this.keyed.plan(h, channel, key, input[key])]);
          return [];
        }
        return [checkKey(h, level, channel, key, input[key], this.ctx.quoter)];
      });
      for (const [key, work] of owned) {
        const t = { h, channel, keys: [key] };
        void this.ctx.track(
          work().catch((err: unknown) => (err instanceof Refusal ? this.refuse(topic, err, t) : this.failed(topic, t, err))),
        );
      }
      const byPage = new Map<string, PagePlan[]>();
      const live: LivePlan = { change: {} };
      /** The command key of each live field (`brightness` came as `floodlight_brightness` or the light's JSON). */
      const liveKeys = new Map<keyof LiveChange, string>();
      for (const p of planned) {
        if (p.kind === 'page') byPage.set(p.row.source.page, [...(byPage.get(p.row.source.page) ?? []), p]);
        else if (p.kind === 'live') {
          Object.assign(live.change, p.plan.change);
          for (const f of Object.keys(p.plan.change) as Array<keyof LiveChange>) liveKeys.set(f, p.row.key);
          live.switchOff ??= p.plan.switchOff;
        } else void this.ctx.track(this.disarm(topic, h, p.value));
      }
      for (const [page, plans] of byPage) void this.ctx.track(this.write(topic, h, page, plans, channel));
      if (Object.keys(live.change).length) void this.ctx.track(this.live(topic, h, channel!, live, liveKeys));
    } catch (err) {
      this.refuse(topic, err, target);
    }
  }

  /** `get`: a read of the device (coalesced with every other read asked for meanwhile), then the state. */
  private get(topic: string, h: DeviceRuntime, channel?: string): void {
    void this.ctx.track(
      h.read().then(
        () => this.ctx.publishState(h, { force: true, channel }),
        (err) => this.ctx.event('command_failed', { topic, device: h.device.id, reason: errorText(err) }),
      ),
    );
  }

  private failed(topic: string, target: Target & { h: DeviceRuntime }, err: unknown): void {
    const q = this.ctx.quoter;
    const e = err instanceof DeviceError ? { error_code: err.error_code, violations: q.redactDeep(err.violations) as never } : {};
    // Aborted by the logout of a stopping bridge: it may or may not have reached the device.
    const reason = `${this.ctx.stopping ? 'the bridge stopped before the device confirmed it: ' : ''}${q.redact(errorText(err))}`;
    this.ctx.log.warn(`command on ${topic} failed: ${reason}`);
    this.ctx.event('command_failed', { topic, device: target.h.device.id, reason, ...e });
    this.report('failed', target, reason);
  }

  /**
   * The device answered the Set after the request deadline, yet its read-back holds what was asked: the command is
   * confirmed (its state published as usual, no `command_error`), and `command_applied_late` says that the device is
   * slower than the timeout.
   */
  private appliedLate(
    topic: string,
    h: DeviceRuntime,
    channel: string | undefined,
    keys: readonly string[],
    late: DeviceError,
    seen: 'read back' | 'read again' = 'read back',
  ): void {
    if (!keys.length) return;
    const key = this.ctx.quoter.quote(keys.join(','));
    const reason = `applied late: the device answered the Set after its deadline (${this.ctx.quoter.redact(late.reason)}); ${seen}: applied`;
    const shown = this.ctx.quoter.quote(topic, 256);
    this.ctx.log.warn(`command on ${shown} ${reason}`);
    this.ctx.event('command_applied_late', { topic: shown, device: h.device.id, channel: channel ?? null, key, reason });
  }

  /**
   * A Set that left and timed out (its read-back, if any, did not show it yet) was reported failed, yet a slow device
   * may still carry it out (12 s for a 10 s deadline). Once the deadline passed once more, `holds` reads the device
   * again (its state published as usual) and says whether it shows what was asked: then `command_applied_late`.
   */
  private recheck(topic: string, target: Target & { h: DeviceRuntime }, err: unknown, holds: () => Promise<boolean>): void {
    if (!leftUnanswered(err) || this.ctx.stopping) return;
    const timer = setTimeout(() => {
      this.rechecks.delete(timer);
      if (this.ctx.stopping) return;
      void this.ctx.track(
        holds().then(
          (applied) => {
            if (applied && !this.ctx.stopping) this.appliedLate(topic, target.h, target.channel, target.keys, err, 'read again');
          },
          () => undefined, // no answer again: the failure reported stands
        ),
      );
    }, target.h.device.timeoutMs);
    this.rechecks.add(timer);
  }

  private notConfirmed(topic: string, target: Target & { h: DeviceRuntime }, field: string, requested: unknown, reported: unknown): void {
    this.ctx.event('command_not_confirmed', { topic, device: target.h.device.id, field, requested, reported: reported ?? null });
    const shown = (x: unknown) => (x === undefined ? 'nothing' : JSON.stringify(x));
    this.report('not_confirmed', target, `asked for ${shown(requested)}, the device reports ${shown(reported)}`);
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

  private async write(topic: string, h: DeviceRuntime, page: string, plans: PagePlan[], channel: string | undefined): Promise<void> {
    const changes = plans.map((p) => p.change);
    // Claimed before queueing: a later command on the same field supersedes this one's report.
    const fieldKey = (c: Change) => `${h.id}/${page}/${changeField(c)}`;
    const claim = this.claim(changes.map(fieldKey));
    const isLatest = (c: Change) => claim.isLatest(fieldKey(c));
    try {
      const { readBack, late } = await h.device.writes.enqueue(page, { kind: 'changes', changes });
      const applied: string[] = [];
      for (const { change: c, row } of plans) {
        const got = readBackValue(readBack, c);
        if (got !== c.value && isLatest(c)) this.notConfirmed(topic, { h, channel, keys: [row.key] }, changeField(c), c.value, got);
        else if (got === c.value) applied.push(row.key);
      }
      if (late) this.appliedLate(topic, h, channel, applied, late);
    } catch (err) {
      const target = { h, channel, keys: plans.map((p) => p.row.key) };
      this.failed(topic, target, err);
      this.recheck(topic, target, err, async () => {
        const now = await h.device.reread(page);
        return now !== undefined && changes.every((c) => readBackValue(now, c) === c.value);
      });
    } finally {
      claim.release();
    }
  }

  /**
   * Live change through `setLive` (core serialises a channel's live writes); a duration (siren) arms its off timer.
   * Like page writes, only the latest command per live field reports, and only the latest command on a switch arms a
   * timer (one that arrived while this one was still on the wire has replaced it).
   */
  private async live(
    topic: string,
    h: DeviceRuntime,
    channel: string,
    plan: LivePlan,
    keys: ReadonlyMap<keyof LiveChange, string>,
  ): Promise<void> {
    const fields = Object.keys(plan.change) as Array<keyof LiveChange>;
    const fieldKey = (k: keyof LiveChange) => `${h.id}/live/${channel}/${k}`;
    const claim = this.claim(fields.map(fieldKey));
    const isLatest = (k: keyof LiveChange) => claim.isLatest(fieldKey(k));
    const timerKey = (control: string) => `${h.id}/${channel}/${control}`;
    // Any later command on a switch of the channel replaces its pending switch-off.
    for (const k of fields) this.offTimers.cancel(timerKey(k));
    let late: DeviceError | undefined;
    try {
      const state = await h.device.writeLive(channel, plan.change, { onAppliedLate: (err) => (late = err) });
      if (late) this.appliedLate(topic, h, channel, [...new Set(fields.map((k) => keys.get(k) ?? k))], late);
      for (const k of fields) {
        if (state[k] !== plan.change[k] && isLatest(k))
          this.notConfirmed(topic, { h, channel, keys: [keys.get(k) ?? k] }, `live.${channel}.${k}`, plan.change[k], state[k]);
      }
      const off = plan.switchOff;
      if (off && state[off.control] === true && isLatest(off.control) && !this.ctx.stopping) {
        this.offTimers.schedule(timerKey(off.control), off.seconds, () => {
          if (this.ctx.stopping) return;
          this.ctx.log.debug(`${off.control} ${h.id} ${channel}: duration over, switching off`);
          void this.ctx.track(
            h.device
              .writeLive(channel, { [off.control]: false })
              .catch((err: unknown) => this.failed(topic, { h, channel, keys: [keys.get(off.control) ?? off.control] }, err)),
          );
        });
      }
    } catch (err) {
      const target = { h, channel, keys: [...new Set(keys.values())] };
      this.failed(topic, target, err);
      this.recheck(topic, target, err, async () => {
        const now = await h.device.client.liveAfterWrites(channel);
        h.device.applyLive(channel, now);
        return fields.every((k) => now[k] === plan.change[k]);
      });
    } finally {
      claim.release();
    }
  }

  private async disarm(topic: string, h: DeviceRuntime, value: boolean): Promise<void> {
    let late: DeviceError | undefined;
    try {
      const got = await h.device.writeDisarmed(value, { onAppliedLate: (err) => (late = err) });
      if (got !== value) this.notConfirmed(topic, { h, keys: ['disarmed'] }, 'disarmed', value, got);
      else if (late) this.appliedLate(topic, h, undefined, ['disarmed'], late);
    } catch (err) {
      const target = { h, keys: ['disarmed'] };
      this.failed(topic, target, err);
      this.recheck(topic, target, err, async () => (await h.device.rereadDisarmed()) === value);
    }
  }
}
