/**
 * What happens on the device: alarms starting and ending, disk alarms, live light/siren changes and cameras
 * connecting. Each goes into the Event/Check ring in the vendor's shape; alarms active now are kept for the
 * subscribe answer. `alarmEveryMs` raises random alarms the channels can raise (start, then end a little later).
 */
import { AiAlarmForm, AlarmRequest, AlarmType, allowedAlarms, channelAlarmEntry, eventClassOf } from './alarms';
import type { Device } from './device';
import type { EventHub, Obj } from './events';
import { LIVE_PAGE, liveEventMember } from './live';
import type { SimRecognition } from './recognition';
import { aiPicture, snapItem, type AiPictureForm, type AlarmPictures, type PictureSpec } from './pictures';

export interface DiskAlarm {
  ok: boolean;
  /** `hdd_alarm_info`: Full, Bad, Unformat, Readonly, Warning, NoDisk. */
  info?: string;
}

const DISK_INFO = ['Full', 'Bad', 'Unformat', 'Readonly', 'Warning', 'NoDisk'];

export class Activity {
  /** `${channel}|${type}` -> the channel entry of the alarm active now. */
  private readonly active = new Map<string, Obj>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private pictureId = 700;
  /** Which pictures alarm starts carry (pictures.ts), and the form of AI pictures. */
  pictures: AlarmPictures = 'none';
  aiPictureForm: AiPictureForm = 'wrapped';
  /** The face and plate lists a recognition is matched against (recognition.ts). */
  recognition?: SimRecognition;

  constructor(
    private readonly device: Device,
    private readonly events: EventHub,
    private readonly aiForm: AiAlarmForm,
    private readonly deviceName: string,
  ) {
    device.onStatusChange = (id) => this.connectChanged(id);
  }

  /** Told of every alarm edge raised (the HTTP push of alarms, event-push.ts). */
  onRaise?: (a: AlarmRequest) => void;

  /** Raise (active) or end an alarm; throws when the channel cannot raise it. */
  raise(a: AlarmRequest): void {
    const ch = typeof a?.channel === 'string' ? this.device.channel(a.channel) : undefined;
    if (!ch) throw new Error(`raiseAlarm: no channel ${a?.channel} on this simulator`);
    if (!ch.configured || !this.device.isOnline(ch.id)) throw new Error(`raiseAlarm: ${ch.id} is ${this.device.status(ch.id)}`);
    const entry = channelAlarmEntry(ch, a, this.aiForm, true);
    if (typeof entry === 'string') throw new Error(`raiseAlarm: ${entry}`);
    const key = `${ch.id}|${a.type}`;
    if (a.active) this.active.set(key, entry);
    else this.active.delete(key);
    const now = new Date();
    const pictures = a.active && a.type !== 'video_loss' ? this.picturesOf(ch.id, a, entry, now) : undefined;
    this.events.push(eventClassOf(a.type), { channel_alarm: [entry] }, now, pictures);
    this.onRaise?.(a);
    this.react(ch.id);
  }

  /**
   * The device's own alarm reaction: while an alarm is active on a channel whose Deterrence `flood_light_switch` /
   * VoiceAlarm `siren_switch` is on, the live light / siren is on (unless disarmed); it goes off with the last alarm.
   * A change is announced as a `Floodlight_AudioAlarm` entry like any live change.
   */
  private react(id: string): void {
    const live = this.device.state[LIVE_PAGE]?.channel_info?.[id];
    if (!live) return;
    const st = this.device.state;
    const dis = st['AlarmConfig/Disarming'];
    const disarmed = dis?.disarming === true && Array.isArray(dis.disarming_channel) && dis.disarming_channel.includes(id);
    const alarmed = !disarmed && [...this.active.keys()].some((k) => k.startsWith(`${id}|`) && !k.endsWith('|video_loss'));
    const want: Obj = {};
    if (st['AlarmConfig/Deterrence']?.channel_info?.[id]?.flood_light_switch === true && 'floodlight_switch' in live)
      want.floodlight_switch = alarmed;
    if (st['AlarmConfig/VoiceAlarm']?.channel_info?.[id]?.siren_switch === true && 'audioAlarm_switch' in live)
      want.audioAlarm_switch = alarmed;
    if (!Object.keys(want).some((k) => live[k] !== want[k])) return;
    Object.assign(live, want);
    this.liveChanged(id);
  }

  /** The pictures of an alarm start, as the device is set to attach them; `entry` gets the picture id. */
  private picturesOf(channel: string, a: AlarmRequest, entry: Obj, now: Date): { snap?: Obj; ai?: Obj } | undefined {
    if (a.target !== undefined && !['human', 'vehicle', 'non_vehicle'].includes(a.target))
      throw new Error('raiseAlarm: target must be human, vehicle or non_vehicle');
    if (this.pictures === 'none') return undefined;
    const id = ++this.pictureId;
    const int = (entry.int_alarm ?? (entry.alarm_state as Obj[] | undefined)?.[0]) as Obj | undefined;
    const subtype = typeof int?.int_subtype === 'string' ? int.int_subtype : undefined;
    const name = this.device.channelName(channel);
    const kind = subtype === 'fd' ? 'face' : subtype === 'lpd' ? 'plate' : undefined;
    const identity = kind && this.recognition ? this.recognition.identity(kind, a) : undefined;
    const spec: PictureSpec = { channel, alias: channel, name, id, label: subtype ?? a.type, subtype, target: a.target, now, identity };
    const out: { snap?: Obj; ai?: Obj } = {};
    if (this.pictures !== 'ai') {
      out.snap = snapItem(spec);
      entry.take_alarm_snap = id;
    }
    if (this.pictures !== 'snap') out.ai = aiPicture(spec, this.aiPictureForm);
    return out.snap || out.ai ? out : undefined;
  }

  raiseDisk(d: DiskAlarm): void {
    if (typeof d?.ok !== 'boolean') throw new Error('raiseDiskAlarm: ok must be a boolean');
    const info = d.info ?? (d.ok ? undefined : 'Bad');
    if (info !== undefined && !DISK_INFO.includes(info)) throw new Error(`raiseDiskAlarm: info must be one of ${DISK_INFO.join(', ')}`);
    const hdd: Obj = { hdd_alarm_type: d.ok ? 'Ok' : 'Error', ...(info !== undefined ? { hdd_alarm_info: info } : {}) };
    this.events.push('system', { system_alarm: [{ device_name: this.deviceName, hdd }] });
  }

  /** Entries of the alarms active now (the subscribe answer). */
  current(): Obj[] {
    return [...this.active.values()];
  }

  /** The live state of a channel changed (a Set, or the device itself): a `Floodlight_AudioAlarm` entry. */
  liveChanged(id: string): void {
    const ch = this.device.channel(id);
    const s = this.device.state[LIVE_PAGE]?.channel_info?.[id];
    if (!ch || !s || !(ch.floodlight || ch.siren)) return;
    this.events.push('status', { channel_alarm: [{ channel: id, Floodlight_AudioAlarm: liveEventMember(ch, s) }] });
  }

  /** A camera connected or went away: a status-only `camera_connect_status` entry (clients ignore it). */
  private connectChanged(id: string): void {
    const online = this.device.isOnline(id);
    if (!online) for (const key of [...this.active.keys()]) if (key.startsWith(`${id}|`)) this.active.delete(key);
    this.events.push('status', {
      channel_alarm: [
        {
          channel: id,
          camera_connect_status: {
            connect_status: this.device.status(id),
            ability: [],
            protocol: 'Private',
            input_num: 0,
            output_num: 0,
            intelligent_ability: [],
          },
        },
      ],
    });
  }

  /** Every `everyMs`: a random alarm an online channel can raise starts, and ends `holdMs` later. */
  startRandom(everyMs: number, holdMs = Math.min(3000, Math.max(50, everyMs / 2)), random = Math.random): void {
    const tick = setInterval(() => {
      const chans = this.device.profile.channels.filter((c) => c.configured && this.device.isOnline(c.id));
      if (!chans.length) return;
      const ch = chans[Math.floor(random() * chans.length)];
      const types = allowedAlarms(ch).filter((t) => t !== 'video_loss');
      const type: AlarmType = types[Math.floor(random() * types.length)];
      this.raise({ channel: ch.id, type, active: true });
      const end = setTimeout(() => {
        this.timers.delete(end);
        if (this.device.isOnline(ch.id)) this.raise({ channel: ch.id, type, active: false });
      }, holdMs);
      this.timers.add(end);
    }, everyMs);
    this.timers.add(tick);
  }

  stop(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}
