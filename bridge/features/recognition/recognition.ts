/**
 * Faces and plates recognised, with who or which plate (issue 39): each recognition the device reports (the
 * identity in `ai_snap_picture`'s `FaceInfo` / `PlateInfo`, core/recognition.ts) goes out
 * - on `<dev>/<ch>/event` as `{"type":"face_recognized"|"plate_recognized", "event_type", ...identity}` (not
 *   retained; `event_type` is the Home Assistant "Recognition" entity's: face_known, face_blocked, face_stranger,
 *   plate_allowed, plate_blocked, plate_unknown);
 * - retained on `<dev>/<ch>/last_face` / `last_plate` (the same JSON: no pictures inline), its pictures first on
 *   `.../picture` (the face or plate cut out) and `.../scene` (retained JPEG).
 * The group's name and policy come from the device's group lists (FDGroup/Get, PlateGroup/Get), read on the first
 * recognition and kept (RecognitionGroups): a device that recognises nothing is asked nothing more than before.
 */
import {
  channelSlug,
  recognitionFields,
  recognitionGroup,
  RecognitionGroups,
  type AlarmPicture,
  type RecognitionGroup,
  type RecognitionIdentity,
} from '../../../core';
import type { Device } from '../../device/device';
import { errorText, type Logger } from '../../base/log';
import type { MqttLink } from '../../mqtt/link';
import type { Json } from '../../device/state';
import type { Topics } from '../../mqtt/topics';

type Kind = RecognitionIdentity['kind'];

/** The event types a channel's "Recognition" entity lists, by what the channel recognises. */
const EVENT_TYPES: Readonly<Record<Kind, readonly string[]>> = {
  face: ['face_known', 'face_blocked', 'face_stranger'],
  plate: ['plate_allowed', 'plate_blocked', 'plate_unknown'],
};

/** `intelligent_ability` that says a channel does face (FD) or plate (LPD) recognition. */
const ABILITY: Readonly<Record<Kind, string>> = { face: 'FD', plate: 'LPD' };

/** The recognition payload (event, last_face / last_plate): what it says (core), channel, time, picture topics. */
export function recognitionPayload(
  identity: RecognitionIdentity,
  group: RecognitionGroup | undefined,
  o: { channel: string; time: string; pictures: Record<string, string> },
): Record<string, unknown> {
  return {
    type: identity.kind === 'face' ? 'face_recognized' : 'plate_recognized',
    ...recognitionFields(identity, group),
    channel: o.channel,
    time: o.time,
    pictures: o.pictures,
  };
}

export interface RecognitionOptions {
  link: MqttLink;
  topics: Topics;
  log: Logger;
  /** Called for every recognition published (tests, figures). */
  onRecognition?: (device: string, payload: Record<string, unknown>) => void;
}

export class DeviceRecognition {
  readonly groups: RecognitionGroups;
  /** Recognitions go out in the device's order (a group read may be pending). */
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly device: Device,
    private readonly o: RecognitionOptions,
  ) {
    this.groups = new RecognitionGroups((path, data) => device.client.call(path, data));
  }

  /** What each channel was seen to recognise: kept while its camera is away (an offline channel lists no ability). */
  private readonly seen = new Map<string, Set<Kind>>();

  /**
   * What the channel recognises, as the device says (ChannelInfo `intelligent_ability`), or said before: its entities
   * stay when the camera goes offline (no flapping in Home Assistant).
   */
  kinds(channel: string): Kind[] {
    const slot = this.device.facts.channelSlots?.find((s) => s.id === channel);
    let kinds = this.seen.get(channel);
    if (!kinds) this.seen.set(channel, (kinds = new Set()));
    for (const k of ['face', 'plate'] as const) if (slot?.ai.includes(ABILITY[k])) kinds.add(k);
    return (['face', 'plate'] as const).filter((k) => kinds.has(k));
  }

  /** A picture of the device's events: published when it names a face or a plate. */
  picture(channel: string, picture: AlarmPicture, time: string | undefined): void {
    const identity = picture.identity;
    if (!identity || this.stopped) return;
    const at = time ?? new Date().toISOString();
    this.queue = this.queue.then(() => this.publish(channel, identity, picture, at));
  }

  private async publish(channel: string, identity: RecognitionIdentity, picture: AlarmPicture, time: string): Promise<void> {
    // Without the lists the recognition still goes out, without its group's name and policy.
    const group = await recognitionGroup(this.groups, identity, (err) => this.o.log.warn(`${identity.kind} groups: ${errorText(err)}`));
    if (this.stopped) return;
    const { link, topics } = this.o;
    const id = this.device.id;
    const slug = channelSlug(channel);
    const retained = { retain: true, qos: 1 } as const;
    const pictures: Record<string, string> = {};
    const parts: Array<['picture' | 'scene', Buffer | undefined]> = [
      ['picture', picture.object ?? picture.jpeg],
      ['scene', picture.object ? picture.jpeg : undefined],
    ];
    for (const [part, jpeg] of parts) {
      if (!jpeg) continue;
      const topic = topics.lastRecognitionPicture(id, slug, identity.kind, part);
      link.publish(topic, jpeg, retained);
      pictures[part] = topic;
    }
    const payload = recognitionPayload(identity, group, { channel, time, pictures });
    const body = JSON.stringify(payload);
    link.publish(topics.lastRecognition(id, slug, identity.kind), body, retained);
    link.publish(topics.event(id, slug), body, { qos: 1 });
    this.o.onRecognition?.(id, payload);
  }

  stop(): Promise<void> {
    this.stopped = true;
    return this.queue;
  }
}

/** A channel's Home Assistant entities for what it recognises (none where it recognises nothing). */
export function recognitionComponents(
  topics: Topics,
  device: string,
  slug: string,
  node: string,
  kinds: readonly Kind[],
): Json | undefined {
  if (!kinds.length) return undefined;
  const out: Json = {
    recognition: {
      p: 'event',
      name: 'Recognition',
      unique_id: `${node}_recognition`,
      state_topic: topics.event(device, slug),
      event_types: kinds.flatMap((k) => EVENT_TYPES[k]),
      // The channel's alarm edges share the topic: only recognitions are this entity's.
      value_template: "{% if value_json.type in ['face_recognized', 'plate_recognized'] %}{{ value_json | to_json }}{% endif %}",
      icon: 'mdi:account-search',
    },
  };
  const labels: Record<Kind, { name: string; state: string; icon: string }> = {
    face: { name: 'Face', state: "{{ value_json.name if value_json.name else 'Stranger' }}", icon: 'mdi:face-recognition' },
    plate: { name: 'Plate', state: '{{ value_json.plate }}', icon: 'mdi:card-text-outline' },
  };
  for (const k of kinds) {
    const l = labels[k];
    out[`last_${k}`] = {
      p: 'sensor',
      name: `Last ${l.name.toLowerCase()}`,
      unique_id: `${node}_last_${k}`,
      state_topic: topics.lastRecognition(device, slug, k),
      value_template: l.state,
      json_attributes_topic: topics.lastRecognition(device, slug, k),
      icon: l.icon,
    };
    out[`last_${k}_picture`] = {
      p: 'image',
      name: `Last ${l.name.toLowerCase()} picture`,
      unique_id: `${node}_last_${k}_picture`,
      image_topic: topics.lastRecognitionPicture(device, slug, k, 'picture'),
      content_type: 'image/jpeg',
      json_attributes_topic: topics.lastRecognition(device, slug, k),
      icon: l.icon,
    };
  }
  return out;
}
