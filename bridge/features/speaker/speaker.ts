/**
 * The speaker of one device (core/speaker.ts: `AlarmConfig/VoicePrompts`), where the device has the page:
 *
 * - `<base>/<dev>[/<ch>]/set/say`: `{"text", "language"?}` or the bare text, spoken by the device's converter on the
 *   recorder's own speaker (no channel) or the camera's; Home Assistant's `notify` "Speaker" sends there.
 * - `<base>/<dev>[/<ch>]/set/play_prompt`: a stored prompt's name or number (empty: the one chosen with
 *   `set/prompt`, Home Assistant's select "Prompt" and button "Play prompt").
 * - `<base>/<dev>/prompts` (retained): `{"prompts": [{"index", "name"}], "speakers": ["local", "CH1", ...]}`;
 *   `<base>/<dev>[/<ch>]/prompt` (retained): `{"prompt": <chosen name or null>}`.
 *
 * A channel without a speaker (not among the cameras the page says can play; a recorder whose DeviceInfo says
 * `support_speaker: false`) gets no entities and its commands are refused with the reason, never sent. The prompts
 * are read when the structure changes and after each upload (`bridge/request/prompt`).
 */
import {
  channelSlug,
  DeviceError,
  playPrompt,
  promptLanguage,
  readPromptLimits,
  readSpeakers,
  say,
  uploadPrompt,
  type Prompt,
  type PromptLimits,
  type PromptUpload,
  type SpeakerOffer,
} from '../../../core';
import { isPlainObject } from '../../../core/json';
import { Refusal } from '../../device/refusal';
import type { Device } from '../../device/device';
import { errorText, type Logger } from '../../base/log';
import type { MqttLink } from '../../mqtt/link';
import type { Json } from '../../device/state';
import type { Topics } from '../../mqtt/topics';

export const SPEAKER_KEYS = ['say', 'play_prompt', 'prompt'] as const;
export type SpeakerKey = (typeof SPEAKER_KEYS)[number];
export const isSpeakerKey = (k: string): k is SpeakerKey => (SPEAKER_KEYS as readonly string[]).includes(k);

/** The recorder's own speaker, as the speakers list names it. */
const LOCAL = 'local';

/** Home Assistant components of one speaker (the recorder's: no slug). */
export function speakerComponents(
  topics: Topics,
  device: string,
  slug: string | undefined,
  node: string,
  prompts: readonly Prompt[],
): Json {
  const out: Json = {
    speaker: {
      p: 'notify',
      name: 'Speaker',
      unique_id: `${node}_speaker`,
      command_topic: topics.set(device, slug, 'say'),
      command_template: '{{ {"text": value} | tojson }}',
      icon: 'mdi:account-voice',
    },
  };
  if (prompts.length) {
    // A camera's prompt controls are there for whoever wants them (the recorder's serve most): announced disabled.
    const quiet = slug ? { enabled_by_default: false } : {};
    out.prompt = {
      p: 'select',
      name: 'Prompt',
      unique_id: `${node}_prompt`,
      state_topic: `${topics.state(device, slug)}/prompt`,
      value_template: "{{ value_json.prompt if value_json.prompt else 'None' }}",
      command_topic: topics.set(device, slug, 'prompt'),
      options: prompts.map((p) => p.name),
      icon: 'mdi:playlist-music',
      ...quiet,
    };
    out.play_prompt = {
      p: 'button',
      name: 'Play prompt',
      unique_id: `${node}_play_prompt`,
      command_topic: topics.set(device, slug, 'play_prompt'),
      payload_press: '',
      icon: 'mdi:play',
      ...quiet,
    };
  }
  return out;
}

export interface SpeakerOptions {
  link: MqttLink;
  topics: Topics;
  log: Logger;
  /** The speakers or prompts changed: discovery is due. */
  onChange: () => void;
}

export class DeviceSpeaker {
  private offer?: SpeakerOffer;
  private limits?: PromptLimits;
  private local = false;
  /** The prompt chosen per speaker (`local` or a channel) for the Play button. */
  private readonly chosen = new Map<string, string>();
  private loading?: Promise<void>;
  /** Cameras the page has said can play (kept while a camera is offline; its commands are refused meanwhile). */
  private readonly cameras = new Set<string>();
  /** The channels the last read was for. */
  private loadedFor?: string;
  private stopped = false;

  constructor(
    private readonly device: Device,
    private readonly opts: SpeakerOptions,
  ) {}

  stop(): void {
    this.stopped = true;
  }

  /** Channel ids in device order (`ipc_channel_info` numbers channels by their place). */
  private slots(): string[] {
    return (this.device.facts.channelSlots ?? []).map((s) => s.id);
  }

  /** The speakers: `local` where the recorder has one, and the cameras able to play. */
  speakers(): string[] {
    if (!this.offer) return [];
    return [...(this.local ? [LOCAL] : []), ...this.device.channels().filter((c) => this.cameras.has(c))];
  }

  has(channel: string | undefined): boolean {
    return this.speakers().includes(channel ?? LOCAL);
  }

  prompts(): readonly Prompt[] {
    return this.offer?.prompts ?? [];
  }

  /**
   * Read the prompts and speakers (coalesced); a device without the page keeps none (R2). Read again only when the
   * channels changed (which cameras are online), or `fresh` (after an upload).
   */
  load(fresh = false): Promise<void> {
    const key = JSON.stringify([this.slots(), [...(this.device.facts.channelList ?? [])]]);
    if (!fresh && key === this.loadedFor) return this.loading ?? Promise.resolve();
    this.loadedFor = key;
    this.loading ??= this.doLoad().finally(() => (this.loading = undefined));
    return this.loading;
  }

  private async doLoad(): Promise<void> {
    if (this.stopped) return;
    const before = JSON.stringify([this.speakers(), this.prompts()]);
    const client = this.device.client;
    try {
      const [offer, limits] = await Promise.all([
        readSpeakers(client, this.slots(), { priority: 'poll' }),
        readPromptLimits(client, { priority: 'poll' }),
      ]);
      this.offer = offer;
      // A camera the page named once keeps its entities while it is offline (no flapping in Home Assistant).
      for (const c of offer.cameras) this.cameras.add(c);
      this.limits = limits;
      // DeviceInfo `support_speaker` (read with the identity); a device that does not say has the page's own.
      this.local = this.device.facts.info?.speaker !== false;
    } catch (err) {
      if (!(err instanceof DeviceError && err.kind === 'unsupported')) this.opts.log.warn(`voice prompts: ${errorText(err)}`);
      else this.offer = undefined;
    }
    this.publish();
    if (JSON.stringify([this.speakers(), this.prompts()]) !== before) this.opts.onChange();
  }

  private publish(): void {
    if (!this.offer) return;
    const { link, topics } = this.opts;
    const id = this.device.id;
    link.publish(`${topics.state(id)}/prompts`, JSON.stringify({ prompts: this.prompts(), speakers: this.speakers() }), {
      retain: true,
      qos: 1,
      queue: true,
    });
    for (const s of this.speakers()) this.publishChosen(s);
  }

  private publishChosen(speaker: string): void {
    const slug = speaker === LOCAL ? undefined : channelSlug(speaker);
    const name = this.chosen.get(speaker);
    const prompt = name && this.prompts().some((p) => p.name === name) ? name : null;
    this.opts.link.publish(`${this.opts.topics.state(this.device.id, slug)}/prompt`, JSON.stringify({ prompt }), {
      retain: true,
      qos: 1,
      queue: true,
    });
  }

  /** A command: checked now (a Refusal, nothing sent), carried out by the returned function. */
  plan(channel: string | undefined, key: SpeakerKey, raw: unknown): () => Promise<void> {
    const speaker = channel ?? LOCAL;
    const where = channel ? `${channel} of ${this.device.id}` : this.device.id;
    if (!this.offer) throw new Refusal(`${key}: ${this.device.id} has no voice prompts (AlarmConfig/VoicePrompts)`, { key });
    if (!this.has(channel)) throw new Refusal(`${key}: ${where} has no speaker`, { key });
    if (key === 'say') {
      const { text, language } = this.sayInput(raw);
      return async () => {
        await say(this.device.client, {
          text,
          language,
          deviceLanguage: this.offer?.language,
          targets: [speaker],
          slots: this.slots(),
          limits: this.limits,
        });
      };
    }
    if (key === 'prompt') {
      const p = this.findPrompt(raw, key);
      return () => {
        this.chosen.set(speaker, p.name);
        this.publishChosen(speaker);
        return Promise.resolve();
      };
    }
    const wanted = raw === '' || raw === null || raw === undefined || raw === true ? this.chosen.get(speaker) : raw;
    if (wanted === undefined) throw new Refusal(`${key}: choose a prompt first (set/prompt), or name one`, { key });
    const p = this.findPrompt(wanted, key);
    return () => playPrompt(this.device.client, p.index, [speaker], this.slots());
  }

  private sayInput(raw: unknown): { text: string; language?: string } {
    const input = isPlainObject(raw) ? raw : { text: raw };
    const extra = Object.keys(input).filter((k) => k !== 'text' && k !== 'language');
    if (extra.length) throw new Refusal(`say: unknown member(s) ${extra.join(', ')} (expected text, language)`, { key: 'say' });
    const text = typeof input.text === 'number' ? String(input.text) : input.text;
    const max = this.limits?.textMax ?? 200;
    if (typeof text !== 'string' || !text.trim() || [...text.trim()].length > max)
      throw new Refusal(`say: text must be 1-${max} characters`, { key: 'say' });
    if (input.language === undefined) return { text };
    if (typeof input.language !== 'string') throw new Refusal('say: language must be a string', { key: 'say' });
    try {
      return { text, language: promptLanguage(input.language, this.limits?.languages ?? []) };
    } catch (err) {
      throw new Refusal(`say: ${err instanceof DeviceError ? err.reason : errorText(err)}`, { key: 'say' });
    }
  }

  /** A stored prompt by name, or by its number on the device. */
  private findPrompt(raw: unknown, key: SpeakerKey): Prompt {
    const prompts = this.prompts();
    const byNumber = typeof raw === 'number' || (typeof raw === 'string' && /^\d+$/.test(raw));
    const p = byNumber ? prompts.find((x) => x.index === Number(raw)) : prompts.find((x) => x.name === raw);
    if (!p)
      throw new Refusal(
        `${key}: no prompt ${JSON.stringify(raw)} on ${this.device.id} (${prompts.map((x) => x.name).join(', ') || 'none stored'})`,
        {
          key,
        },
      );
    return p;
  }

  /** Upload a prompt (`bridge/request/prompt`), then read the list again (the select's options). */
  async upload(input: Omit<PromptUpload, 'limits'>): Promise<Prompt> {
    if (!this.offer) throw new Refusal(`${this.device.id} has no voice prompts (AlarmConfig/VoicePrompts)`);
    const prompt = await uploadPrompt(this.device.client, { ...input, limits: this.limits });
    await this.load(true);
    return prompt;
  }
}
