/**
 * The topic API (DESIGN.md "Bridge: MQTT topic API"): names of every topic, the subscriptions, and the
 * parser of incoming command topics.
 */

export const REQUEST_OPS = ['range', 'get', 'set', 'refresh', 'upgrade', 'diagnostics', 'prompt', 'recordings', 'clip'] as const;

export type ParsedTopic =
  | { kind: 'set'; device: string; channel?: string; key?: string }
  | { kind: 'get'; device: string; channel?: string }
  | { kind: 'request'; op: string };

export class Topics {
  constructor(
    readonly base: string,
    readonly discoveryPrefix: string,
  ) {}

  get bridgeState(): string {
    return `${this.base}/bridge/state`;
  }
  get bridgeInfo(): string {
    return `${this.base}/bridge/info`;
  }
  get bridgeEvent(): string {
    return `${this.base}/bridge/event`;
  }
  /** Which instance acts on this base topic (retained; see InstanceGuard in instance-probe.ts). */
  get bridgeInstance(): string {
    return `${this.base}/bridge/instance`;
  }
  /** The bridge's own pings (non-retained): one that comes back says the broker has sent what was before it. */
  get bridgePing(): string {
    return `${this.base}/bridge/ping`;
  }
  request(op: string): string {
    return `${this.base}/bridge/request/${op}`;
  }
  response(op: string): string {
    return `${this.base}/bridge/response/${op}`;
  }
  /** Device availability, or a channel's (`slug`): an Offline channel's entities show unavailable. */
  availability(device: string, slug?: string): string {
    return `${this.state(device, slug)}/availability`;
  }
  /** Device state (no slug) or channel state (slug such as `ch1`, `ip_ch5`). */
  state(device: string, slug?: string): string {
    return slug ? `${this.base}/${device}/${slug}` : `${this.base}/${device}`;
  }
  /** Alarm edges of a channel (not retained). */
  event(device: string, slug: string): string {
    return `${this.state(device, slug)}/event`;
  }
  /** A channel's latest picture (JPEG bytes, retained). */
  snapshot(device: string, slug: string): string {
    return `${this.state(device, slug)}/snapshot`;
  }
  /** Anything here takes a picture now. */
  snapshotGet(device: string, slug: string): string {
    return `${this.snapshot(device, slug)}/get`;
  }
  /** Firmware of a recorder (or of the camera on a channel): installed and latest version, upgrade progress (retained JSON; bridge/features/firmware/). */
  firmware(device: string, slug?: string): string {
    return `${this.state(device, slug)}/firmware`;
  }
  /** The picture of a channel's latest alarm start (JPEG bytes, retained; the "Last alarm" image entity). */
  alarmPicture(device: string, slug: string): string {
    return `${this.state(device, slug)}/alarm_picture`;
  }
  /** What the latest alarm picture shows: `{type, time, source, target?}` (retained JSON; the image entity's attributes). */
  alarmPictureAttributes(device: string, slug: string): string {
    return `${this.alarmPicture(device, slug)}/attributes`;
  }
  /** The detected object cut out of the latest AI alarm picture (JPEG bytes, retained). */
  alarmPictureObject(device: string, slug: string): string {
    return `${this.alarmPicture(device, slug)}/object`;
  }
  /** The latest face (`face`) or plate (`plate`) recognised on a channel: `<dev>/<ch>/last_face|last_plate` (retained JSON). */
  lastRecognition(device: string, slug: string, kind: 'face' | 'plate'): string {
    return `${this.state(device, slug)}/last_${kind}`;
  }
  /** Its pictures (JPEG bytes, retained): `picture` the face or plate cut out, `scene` the whole picture. */
  lastRecognitionPicture(device: string, slug: string, kind: 'face' | 'plate', part: 'picture' | 'scene'): string {
    return `${this.lastRecognition(device, slug, kind)}/${part}`;
  }
  /** What a PTZ camera offers: stored presets, the preset last called, moves, speed bounds (retained JSON). */
  ptz(device: string, slug: string): string {
    return `${this.state(device, slug)}/ptz`;
  }
  /** A channel's stream addresses without credentials (retained JSON; the camera entity's attributes). */
  streams(device: string, slug: string): string {
    return `${this.state(device, slug)}/streams`;
  }
  /** A device's refused, failed or unconfirmed commands (not retained; Home Assistant's "Command error" entity). */
  commandError(device: string): string {
    return `${this.state(device)}/command_error`;
  }
  set(device: string, slug?: string, key?: string): string {
    return `${this.state(device, slug)}/set${key ? `/${key}` : ''}`;
  }
  get(device: string, slug?: string): string {
    return `${this.state(device, slug)}/get`;
  }

  /** Home Assistant node id: unique per bridge (base topic) and device/channel, topic-safe. */
  node(device: string, slug?: string): string {
    const base = this.base.toLowerCase().replace(/[^a-z0-9_-]+/g, '_');
    return slug ? `${base}_${device}_${slug}` : `${base}_${device}`;
  }
  discovery(node: string): string {
    return `${this.discoveryPrefix}/device/${node}/config`;
  }
  get discoveryWildcard(): string {
    return `${this.discoveryPrefix}/device/+/config`;
  }

  /**
   * Everything the bridge listens to (commands and requests). No two filters match the same topic: a broker
   * delivers a message once per matching subscription, and `<base>/+/+/get` would also match
   * `<base>/bridge/request/get`. So the channel-level `set` and `get` are subscribed per device.
   */
  commandSubscriptions(devices: readonly string[], requests = true): string[] {
    const b = this.base;
    return [
      `${b}/+/set`,
      `${b}/+/set/+`,
      `${b}/+/get`,
      `${b}/+/+/set/+`,
      `${b}/+/restart`,
      ...devices.flatMap((d) => [`${b}/${d}/+/set`, `${b}/${d}/+/get`, `${b}/${d}/+/snapshot/get`, `${b}/${d}/+/restart`]),
      ...(requests ? [this.requestSubscription] : []),
    ];
  }

  /** The request API's subscription (`request_api.enabled`). */
  get requestSubscription(): string {
    return `${this.base}/bridge/request/+`;
  }

  /** `<base>/<dev>/<ch>/snapshot/get`: the device and channel slug asked for a picture. */
  parseSnapshotGet(topic: string): { device: string; slug: string } | undefined {
    const p = topic.startsWith(`${this.base}/`) ? topic.slice(this.base.length + 1).split('/') : [];
    return p.length === 4 && p[0] !== 'bridge' && p[2] === 'snapshot' && p[3] === 'get' ? { device: p[0], slug: p[1] } : undefined;
  }

  /** `<base>/<dev>[/<ch>]/restart`: press to restart the recorder, or a camera behind it (features/restarts/). */
  restart(device: string, slug?: string): string {
    return `${this.state(device, slug)}/restart`;
  }

  /** The device (and channel slug) a `restart` topic names. */
  parseRestart(topic: string): { device: string; slug?: string } | undefined {
    const p = topic.startsWith(`${this.base}/`) ? topic.slice(this.base.length + 1).split('/') : [];
    if (p[0] === 'bridge' || p[p.length - 1] !== 'restart') return undefined;
    return p.length === 2 ? { device: p[0] } : p.length === 3 ? { device: p[0], slug: p[1] } : undefined;
  }

  parse(topic: string): ParsedTopic | undefined {
    if (!topic.startsWith(`${this.base}/`)) return undefined;
    const p = topic.slice(this.base.length + 1).split('/');
    if (p[0] === 'bridge') return p.length === 3 && p[1] === 'request' ? { kind: 'request', op: p[2] } : undefined;
    if (p.length === 2 && p[1] === 'set') return { kind: 'set', device: p[0] };
    if (p.length === 2 && p[1] === 'get') return { kind: 'get', device: p[0] };
    if (p.length === 3 && p[1] === 'set') return { kind: 'set', device: p[0], key: p[2] };
    if (p.length === 3 && p[2] === 'set') return { kind: 'set', device: p[0], channel: p[1] };
    if (p.length === 3 && p[2] === 'get') return { kind: 'get', device: p[0], channel: p[1] };
    if (p.length === 4 && p[2] === 'set') return { kind: 'set', device: p[0], channel: p[1], key: p[3] };
    return undefined;
  }
}
