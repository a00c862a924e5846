/**
 * The simulated device: profile, page state, online channels and the Range answers. Range data is built once per
 * (profile, offline channels) and page, and shared between simulators (the bench runs a hundred of them).
 */
import type { Profile } from './profiles';
import { RangeMap } from './descriptors';
import { buildRange } from './pages';
import { SimState, initialState } from './state';
import { LIVE_PAGE, MANUAL_ALARM_PAGE, initialLive } from './live';

interface BuiltRange {
  data: RangeMap;
  /** `{"result":"success","data":...}` ready to send. */
  body: string;
}

const rangeCache = new Map<string, BuiltRange>();
const RANGE_CACHE_MAX = 512;

export class Device {
  readonly state: SimState;
  private readonly offline = new Set<string>();
  private readonly byId: Map<string, Profile['channels'][number]>;
  /** Range cache key of this device's profile and offline channels; the page is appended. Kept by setOnline(). */
  private rangeKey = '';
  readonly isOnline = (id: string): boolean => !this.offline.has(id);
  /** The picture each channel's last Snapshot/Get answered (tests compare what reached them, byte for byte). */
  readonly pictures = new Map<string, Buffer>();
  /** The address the device writes into its stream URLs (SimulatorOptions.lanAddress); undefined: the Host header. */
  lanAddress?: string;
  /** Called with the channel after setOnline() changed it (Event/Check announces `camera_connect_status`). */
  onStatusChange?: (id: string) => void;

  constructor(readonly profile: Profile) {
    this.state = initialState(profile);
    this.state[LIVE_PAGE] = { channel_info: initialLive(profile.channels) };
    this.state[MANUAL_ALARM_PAGE] = {};
    this.byId = new Map(profile.channels.map((c) => [c.id, c]));
    for (const c of profile.channels) if (!c.online) this.offline.add(c.id);
    this.updateRangeKey();
  }

  channel(id: string) {
    return this.byId.get(id);
  }

  /** Camera names the user gave on the recorder (ChannelInfo `channel_name`); default `Camera<n>`. */
  private readonly names = new Map<string, string>();

  /** ChannelInfo `channel_name` of a configured channel (`""` for an empty slot, vendor). */
  channelName(id: string): string {
    const ch = this.byId.get(id);
    if (!ch?.configured) return '';
    return this.names.get(id) ?? `Camera${ch.index}`;
  }

  rename(id: string, name: string): void {
    if (!this.byId.get(id)?.configured) throw new Error(`renameChannel: ${id} is not a configured channel`);
    if (typeof name !== 'string') throw new Error('renameChannel: the name must be a string');
    this.names.set(id, name);
  }

  /** ChannelInfo `connect_status`. */
  status(id: string): 'Online' | 'Offline' | 'Sleep' | 'NotConfigured' {
    const ch = this.byId.get(id);
    if (!ch?.configured) return 'NotConfigured';
    if (!this.offline.has(id)) return 'Online';
    return ch.battery ? 'Sleep' : 'Offline'; // a battery camera away is asleep
  }

  private updateRangeKey(): void {
    const p = this.profile;
    this.rangeKey = `${p.name}|${p.firmware}|${p.ptzHex}|${p.channels.length}|${p.largeCapacity}|${[...this.offline].sort().join(',')}|`;
  }

  range(page: string): BuiltRange {
    const key = this.rangeKey + page;
    let built = rangeCache.get(key);
    if (!built) {
      const data = buildRange(page, this.profile, this.isOnline);
      built = { data, body: `{"result":"success","data":${JSON.stringify(data)}}` };
      if (rangeCache.size >= RANGE_CACHE_MAX) rangeCache.clear();
      rangeCache.set(key, built);
    }
    return built;
  }

  setOnline(id: string, online: boolean): void {
    const ch = this.byId.get(id);
    if (!ch) throw new Error(`no channel ${id} on this simulator (channels: ${[...this.byId.keys()].join(', ')})`);
    if (ch.kind === 'analog' || !ch.configured) throw new Error(`${id} is not a configured IP_CH/WIFI_CH channel: only those go offline`);
    if (online === this.isOnline(id)) return;
    if (online) this.offline.delete(id);
    else this.offline.add(id);
    this.updateRangeKey();
    this.onStatusChange?.(id);
  }
}
