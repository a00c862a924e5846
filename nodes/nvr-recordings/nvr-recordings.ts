import {
  dayRange,
  hostZone,
  isChannelId,
  isTimeZone,
  isoInZone,
  playbackPlaces,
  playbackUrl,
  recordedPicture,
  recordedPictures,
  recordingDays,
  recordTableOf,
  recordTags,
  searchRecordings,
  writeRecordTag,
  type RecordingContext,
  type TimeInput,
} from '../../core';
import { bindDevice } from '../shared/bind-device';
import { forDone, invalidRequest } from '../shared/errors';
import type { InputHandler, NodeDef, NodeMessage, RED, RedNode } from '../shared/red';

const ACTIONS = ['days', 'list', 'pictures', 'tags', 'tag_add', 'tag_remove'] as const;
type Action = (typeof ACTIONS)[number];
const where = { page: 'Playback/SearchRecord', operation: 'Search' };

const text = (...xs: unknown[]) => xs.find((x): x is string => typeof x === 'string' && x.trim() !== '')?.trim();

/** `msg.channel` or the node's Channel: a channel id (or a list of them), upper-cased. */
function channelsOf(msg: NodeMessage, property: unknown): string[] {
  const raw = Array.isArray(msg.channel) ? (msg.channel as unknown[]) : [text(msg.channel, property)].filter((x) => x !== undefined);
  if (!raw.length) throw invalidRequest('no_channel', 'no channel: set msg.channel (CH1, IP_CH1, ...) or the Channel property', where);
  return raw.map((c) => {
    const id = typeof c === 'string' ? c.trim().toUpperCase() : '';
    if (!isChannelId(id))
      throw invalidRequest('bad_channel', `${JSON.stringify(c)} is not a channel id such as CH1, IP_CH1 or WIFI_CH1`, where);
    return id;
  });
}

/** `msg.from` + `msg.to`, else `msg.date` (a whole day), else today on the device's clock. */
function spanOf(msg: NodeMessage, zone: string): { from: TimeInput; to: TimeInput } {
  // Core checks what came in (readable, in order, at most a day) before anything is sent.
  if (msg.from !== undefined || msg.to !== undefined) return { from: msg.from as TimeInput, to: msg.to as TimeInput };
  const date = text(msg.date) ?? isoInZone(Date.now(), zone).slice(0, 10);
  const day = dayRange(date, zone);
  if (!day) throw invalidRequest('bad_date', `date ${JSON.stringify(msg.date)} is not YYYY-MM-DD`, where);
  return day;
}

function typesOf(msg: NodeMessage, property: unknown): string[] | undefined {
  const t = msg.types ?? text(property);
  if (t === undefined) return undefined;
  const list = Array.isArray(t) ? (t as unknown[]) : typeof t === 'string' ? t.split(',') : [t];
  if (!list.every((x) => typeof x === 'string')) throw invalidRequest('bad_types', 'types: names such as motion, person', where);
  return list.map((x) => x.trim()).filter(Boolean);
}

/**
 * `nvr-recordings`: what the device recorded (vendor: SearchMonth, SearchRecord, Picture, Tag). `msg.action` or the
 * node's Action: `days`, `list` (each recording with its RTSP playback URL, without credentials), `pictures`,
 * `tags`, `tag_add`, `tag_remove`. Output `msg.payload`: the list (or the picture, the tag written).
 */
export = function (RED: RED) {
  function NvrRecordingsNode(this: RedNode, def: NodeDef) {
    RED.nodes.createNode(this, def);
    const node = this;
    let closed = false;
    const binding = bindDevice(RED, node, def.device, () => {
      closed = true;
    });
    let table: RecordingContext['table'] | undefined;

    async function run(msg: NodeMessage): Promise<unknown> {
      if (!binding) throw invalidRequest('no_device', 'no nvr-device configured', where);
      const action = text(msg.action, def.action) ?? 'list';
      if (!(ACTIONS as readonly string[]).includes(action))
        throw invalidRequest('bad_action', `action ${JSON.stringify(action)} is not one of ${ACTIONS.join(', ')}`, where);
      const zone = text(msg.timeZone, def.timeZone) ?? hostZone();
      if (!isTimeZone(zone))
        throw invalidRequest('bad_time_zone', `${JSON.stringify(zone)} is not a time zone such as Europe/Berlin`, where);
      const c = binding.client;
      table ??= recordTableOf(await c.channelSlots());
      const ctx: RecordingContext = { zone, table };
      switch (action as Action) {
        case 'days': {
          const month = text(msg.month) ?? isoInZone(Date.now(), zone).slice(0, 7);
          const channels = msg.channel === undefined && !text(def.channel) ? [] : channelsOf(msg, def.channel);
          return recordingDays(c, { month, channels }, ctx);
        }
        case 'list': {
          const found = await searchRecordings(
            c,
            { channels: channelsOf(msg, def.channel), ...spanOf(msg, zone), types: typesOf(msg, def.types) },
            ctx,
          );
          const places = await playbackPlaces(c, c.url, await c.channelSlots());
          const form = table === 'ipc' ? 'ipc' : 'nvr';
          return found.map((r) => {
            const place = places.get(r.channel);
            const url = place && playbackUrl({ ...place, form, from: Date.parse(r.start), to: Date.parse(r.end), zone });
            return { ...r, ...(url ? { playback_url: url } : {}) };
          });
        }
        case 'pictures': {
          const ref = text(msg.picture);
          if (ref) return recordedPicture(c, ref, ctx);
          return recordedPictures(c, { channels: channelsOf(msg, def.channel), ...spanOf(msg, zone) }, ctx);
        }
        case 'tags':
          return recordTags(c, { channels: channelsOf(msg, def.channel), ...spanOf(msg, zone), keyword: text(msg.keyword) }, ctx);
        case 'tag_add':
        case 'tag_remove': {
          const [channel] = channelsOf(msg, def.channel);
          const time = msg.time as string | number;
          const name = text(msg.name) ?? 'tag';
          await writeRecordTag(c, action === 'tag_add' ? 'add' : 'remove', { channel, time, name, id: msg.id as number | undefined }, ctx);
          return { channel, time, name, done: action === 'tag_add' ? 'added' : 'removed' };
        }
      }
    }

    const onInput: InputHandler = (msg, send, done) => {
      run(msg)
        .then(
          (payload) => {
            if (closed) return done();
            binding?.clearFailure();
            msg.payload = payload;
            send(msg);
            done();
          },
          (e: unknown) => {
            if (closed) return done();
            const err = forDone(e, where);
            binding?.showFailure(err);
            done(err);
          },
        )
        .catch(() => undefined);
    };
    node.on('input', onInput);
  }

  RED.nodes.registerType('nvr-recordings', NvrRecordingsNode);
};
