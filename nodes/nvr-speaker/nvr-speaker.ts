import { basename } from 'node:path';
import { isChannelId } from '../../core/channels';
import { playPrompt, readSpeakers, say, uploadPrompt, type Prompt } from '../../core/speaker';
import { bindDevice } from '../shared/bind-device';
import { forDone, invalidRequest } from '../shared/errors';
import type { InputHandler, NodeDef, NodeMessage, RED, RedNode } from '../shared/red';

const where = { page: 'AlarmConfig/VoicePrompts', operation: 'Set' };
/** The recorder's own speaker (also the camera's own, on a single camera). */
const LOCAL = 'local';

/** The speaker asked for: `msg.channel`, else the node's property; empty or `local`: the recorder's own. */
function speakerOf(msg: NodeMessage, property: unknown): string {
  const given = [msg.channel, property].find((c): c is string => typeof c === 'string' && c.trim() !== '');
  if (!given || given.trim().toLowerCase() === LOCAL) return LOCAL;
  const channel = given.trim().toUpperCase();
  if (!isChannelId(channel))
    throw invalidRequest('bad_channel', `${JSON.stringify(given)} is not a channel id such as CH1 or IP_CH1 (or "local")`, where);
  return channel;
}

/** What to do: say a string, upload and play a Buffer, or play a stored prompt (`msg.prompt`). */
type Work = { say: string } | { file: Buffer; name: string } | { prompt: string | number };

function workOf(msg: NodeMessage): Work {
  const p = msg.payload;
  if (typeof msg.prompt === 'string' || typeof msg.prompt === 'number') return { prompt: msg.prompt };
  if (Buffer.isBuffer(p)) {
    const name = typeof msg.filename === 'string' && msg.filename.trim() ? basename(msg.filename.trim()) : 'nodered-prompt.mp3';
    return { file: p, name };
  }
  if (typeof p === 'string' && p.trim()) return { say: p };
  throw invalidRequest(
    'no_sound',
    'msg.payload must be text to say or a Buffer of audio (MP3, WAV, raw PCM), or msg.prompt a stored prompt',
    where,
  );
}

/**
 * `nvr-speaker`: sound out of the recorder or a camera (core/speaker.ts). `msg.payload` a string: spoken by the
 * device's converter (`msg.language`, else the node's); a Buffer: uploaded as a prompt (`msg.filename` names it)
 * and played; `msg.prompt`: a stored prompt (name or number) played. Output `msg.payload` `{index, name}`, with
 * `msg.channel`. A speaker the device does not list is refused before anything is sent.
 */
export = function (RED: RED) {
  function NvrSpeakerNode(this: RedNode, def: NodeDef) {
    RED.nodes.createNode(this, def);
    const node = this;
    let closed = false;
    const binding = bindDevice(RED, node, def.device, () => {
      closed = true;
    });
    const progress = (text: string) => {
      if (!binding || closed) return;
      binding.muted = true;
      node.status({ fill: 'blue', shape: 'dot', text });
    };

    const onInput: InputHandler = (msg, send, done) => {
      Promise.resolve()
        .then(async () => {
          if (!binding) throw invalidRequest('no_device', 'no nvr-device configured', where);
          const speaker = speakerOf(msg, def.channel);
          const work = workOf(msg);
          const language = [msg.language, def.language].find((l): l is string => typeof l === 'string' && l.trim() !== '');
          const client = binding.client;
          const slots = (await client.channelSlots()).map((s) => s.id);
          const offer = await readSpeakers(client, slots);
          if (speaker !== LOCAL && !offer.cameras.includes(speaker))
            throw invalidRequest(
              'no_speaker',
              `${speaker} has no speaker the device can play on (${offer.cameras.join(', ') || 'no camera'})`,
              where,
            );
          let played: Prompt;
          if ('say' in work) {
            progress('speaking');
            played = await say(client, { text: work.say, language, targets: [speaker], slots });
          } else if ('file' in work) {
            progress('uploading');
            played = await uploadPrompt(client, {
              file: work.file,
              name: work.name,
              onPacket: (n, of) => progress(`uploading ${n}/${of}`),
            });
            progress('playing');
            await playPrompt(client, played.index, [speaker], slots);
          } else {
            const wanted = work.prompt;
            const found = offer.prompts.find((p) => p.name === wanted || p.index === Number(wanted));
            if (!found)
              throw invalidRequest(
                'unknown_prompt',
                `no prompt ${JSON.stringify(wanted)} (${offer.prompts.map((p) => p.name).join(', ') || 'none stored'})`,
                where,
              );
            progress('playing');
            await playPrompt(client, found.index, [speaker], slots);
            played = found;
          }
          return { speaker, played };
        })
        .then(
          ({ speaker, played }) => {
            if (closed) return done();
            if (binding) {
              binding.muted = false;
              binding.clearFailure();
              node.status({ fill: 'green', shape: 'dot', text: `played ${played.name}` });
            }
            msg.payload = { index: played.index, name: played.name };
            msg.channel = speaker;
            send(msg);
            done();
          },
          (e: unknown) => {
            if (closed) return done();
            const err = forDone(e, where);
            if (binding) {
              binding.muted = false;
              binding.showConnection();
              binding.showFailure(err);
            }
            done(err);
          },
        )
        .catch(() => undefined);
    };
    node.on('input', onInput);
  }

  RED.nodes.registerType('nvr-speaker', NvrSpeakerNode);
};
