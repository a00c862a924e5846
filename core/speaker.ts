/**
 * Sound out of the device (vendor-facts-next 3.1, 3.2): its stored prompts, text spoken by its converter, a file
 * uploaded in the packets its Range allows (read packet by packet, never held twice; a failed upload is removed
 * from the device), played now on the recorder's speaker or cameras'. Errors name what is wrong: too large, wrong
 * format, busy, no speaker.
 */
import { open, stat } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { DeviceError, type ErrorKind } from './errors';
import { isPlainObject } from './json';
import type { Invoker } from './operation';
import {
  LOCAL_SPEAKER,
  ipcVoicePromptsSet,
  voicePromptsGet,
  voicePromptsRange,
  voicePromptsSet,
  type VoicePromptsAnswer,
  type VoicePromptsSetRequest,
} from './pages/voice-prompts';

const PAGE = 'AlarmConfig/VoicePrompts';
/** Range fallbacks (vendor Range sample): a packet, a whole file, a text. */
const PACKET_MAX = 512_000;
/** The Set table: one packet never above 1.5 MB, whatever a Range says. */
const PACKET_CAP = 1_572_864;
const FILE_MAX = 5_242_880;
const TEXT_MAX = 200;
/** The file `say` speaks from: replaced on each `say`, so spoken texts never fill the device's list. */
export const SAY_FILE = 'nvr2mqtt-say';

/** What the caller can tell a user; `busy` retries later, the others need another input. */
export type SpeakerProblem =
  'too_large' | 'wrong_format' | 'empty' | 'busy' | 'no_speaker' | 'unsupported' | 'bad_text' | 'bad_language' | 'unknown_prompt';

const KIND: Readonly<Record<SpeakerProblem, ErrorKind>> = {
  too_large: 'invalid_request',
  wrong_format: 'invalid_request',
  empty: 'invalid_request',
  bad_text: 'invalid_request',
  bad_language: 'invalid_request',
  unknown_prompt: 'invalid_request',
  no_speaker: 'invalid_request',
  busy: 'busy',
  unsupported: 'unsupported',
};

export function speakerError(problem: SpeakerProblem, reason: string, cause?: unknown): DeviceError {
  return new DeviceError({ kind: KIND[problem], error_code: problem, reason, page: PAGE, operation: 'Set', cause });
}

/** A stored prompt: `audio_list` entry `"<serial>_<name>"`; Play and Remove name it by its serial. */
export interface Prompt {
  index: number;
  name: string;
}

export function promptList(list: readonly string[] | undefined): Prompt[] {
  return (list ?? []).flatMap((entry) => {
    const m = /^(\d+)_(.*)$/s.exec(entry);
    return m ? [{ index: Number(m[1]), name: m[2] }] : [];
  });
}

export interface PromptLimits {
  /** Bytes of file per packet (Range `package_size` max, within the Set table's 1.5 MB). */
  packetSize: number;
  /** Bytes of a whole file (Range `file_data` max_len). */
  fileMax: number;
  textMax: number;
  /** The converter's languages (Range `language` items). */
  languages: string[];
  /** `NetworkText` where the Range lists it, else `LocalText`. */
  convertMode: 'NetworkText' | 'LocalText';
}

const descriptor = (range: Record<string, unknown>, key: string): Record<string, unknown> => {
  const d = range[key];
  return isPlainObject(d) ? d : {};
};
const positive = (x: unknown, fallback: number): number => (typeof x === 'number' && Number.isInteger(x) && x > 0 ? x : fallback);

/** The limits a VoicePrompts Range gives (the vendor sample's where it is silent). */
export function promptLimits(range: Record<string, unknown>): PromptLimits {
  const items = (key: string) => {
    const it = descriptor(range, key).items;
    return Array.isArray(it) ? it.filter((x): x is string => typeof x === 'string') : [];
  };
  const modes = items('convert_mode');
  return {
    packetSize: Math.min(positive(descriptor(range, 'package_size').max, PACKET_MAX), PACKET_CAP),
    fileMax: positive(descriptor(range, 'file_data').max_len, FILE_MAX),
    textMax: positive(descriptor(range, 'text').max_len, TEXT_MAX),
    languages: items('language'),
    convertMode: modes.length === 0 || modes.includes('NetworkText') ? 'NetworkText' : 'LocalText',
  };
}

export async function readPromptLimits(c: Invoker, opts: { priority?: 'poll' | 'command' } = {}): Promise<PromptLimits> {
  return promptLimits(await call(() => c.invoke(voicePromptsRange, { control_type: 'Normal' }, opts)));
}

export interface SpeakerOffer {
  prompts: Prompt[];
  /** The device's language (the converter's default). */
  language?: string;
  /** Cameras able to play (`info.ipc_channel_info`), as channel ids. */
  cameras: string[];
}

/**
 * The stored prompts and the cameras able to play. `slots`: the channel ids in device order, for devices that name
 * cameras by 0-based number rather than by id.
 */
export async function readSpeakers(
  c: Invoker,
  slots: readonly string[] = [],
  opts: { priority?: 'poll' | 'command' } = {},
): Promise<SpeakerOffer> {
  const a = await call(() => c.invoke(voicePromptsGet, { control_type: 'Normal' }, opts));
  const cameras = (a.info?.ipc_channel_info ?? []).flatMap((x) => {
    if (typeof x === 'number') return slots[x] !== undefined ? [slots[x]] : [];
    return /^\d+$/.test(x) ? (slots[Number(x)] !== undefined ? [slots[Number(x)]] : []) : [x];
  });
  return { prompts: promptList(a.audio_list), language: a.info?.language, cameras };
}

/** `ipc_channel_info` of a speaker: `local` the recorder's own (255), a channel its 0-based place among `slots`. */
export function speakerNumber(target: string, slots: readonly string[]): number {
  if (target === 'local') return LOCAL_SPEAKER;
  const n = slots.indexOf(target);
  if (n < 0 || n >= LOCAL_SPEAKER) throw speakerError('no_speaker', `${target} is not a channel of this device`);
  return n;
}

/** Formats the device plays (its samples are MP3 files; WAV as the siren takes it); raw PCM gets a WAV header. */
export type AudioFormat = 'mp3' | 'wav' | 'pcm';

/** What a file is, from its first bytes (raw PCM has none: only its name says so). */
export function audioFormat(head: Uint8Array, name = ''): AudioFormat | undefined {
  const ascii = (from: number, to: number) => Buffer.from(head.subarray(from, to)).toString('latin1');
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WAVE') return 'wav';
  if (ascii(0, 3) === 'ID3' || (head[0] === 0xff && head.length > 1 && (head[1] & 0xe0) === 0xe0)) return 'mp3';
  if (/\.(pcm|raw)$/i.test(name)) return 'pcm';
  return undefined;
}

export interface PcmFormat {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
}
/** G.711-like speech: 8 kHz, mono, 16 bit. */
export const DEFAULT_PCM: PcmFormat = { sampleRate: 8000, channels: 1, bitsPerSample: 16 };

/** The 44-byte WAV header before `dataSize` bytes of PCM. */
export function wavHeader(dataSize: number, f: PcmFormat = DEFAULT_PCM): Buffer {
  const h = Buffer.alloc(44);
  const blockAlign = (f.channels * f.bitsPerSample) / 8;
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(36 + dataSize, 4);
  h.write('WAVEfmt ', 8, 'latin1');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(f.channels, 22);
  h.writeUInt32LE(f.sampleRate, 24);
  h.writeUInt32LE(f.sampleRate * blockAlign, 28);
  h.writeUInt16LE(blockAlign, 32);
  h.writeUInt16LE(f.bitsPerSample, 34);
  h.write('data', 36, 'latin1');
  h.writeUInt32LE(dataSize, 40);
  return h;
}

/** A file read piece by piece: from a buffer (views, no copy) or a path (one packet in memory at a time). */
interface Source {
  size: number;
  read(offset: number, length: number): Promise<Uint8Array>;
  close(): Promise<void>;
}

async function openSource(file: string | Uint8Array): Promise<Source> {
  if (typeof file !== 'string')
    return { size: file.length, read: (o, n) => Promise.resolve(file.subarray(o, o + n)), close: async () => {} };
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch (err) {
    throw speakerError(
      'empty',
      `cannot read audio file ${JSON.stringify(file)}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
      err,
    );
  }
  const fh = await open(file, 'r');
  return {
    size,
    async read(offset, length) {
      const buf = Buffer.alloc(Math.max(0, Math.min(length, size - offset)));
      const { bytesRead } = await fh.read(buf, 0, buf.length, offset);
      return buf.subarray(0, bytesRead);
    },
    close: () => fh.close(),
  };
}

/** `source` with `header` before it, read in the same pieces. */
function withHeader(header: Uint8Array, source: Source): Source {
  const h = header.length;
  return {
    size: h + source.size,
    async read(offset, length) {
      if (offset >= h) return source.read(offset - h, length);
      const rest = await source.read(0, length - (h - offset));
      return Buffer.concat([header.subarray(offset), rest]);
    },
    close: () => source.close(),
  };
}

export interface PromptUpload {
  /** A file path or its content (MP3, WAV, or raw PCM: then `pcm` says its form, default 8 kHz mono 16 bit). */
  file: string | Uint8Array;
  /** The name on the device (1-64 characters); default the file's base name. Raw PCM is stored as `.wav`. */
  name?: string;
  pcm?: PcmFormat;
  /** The device's limits, when already read. */
  limits?: PromptLimits;
  /** After each packet the device accepted. */
  onPacket?: (sent: number, count: number) => void;
}

/**
 * Upload a prompt in the packets the device's Range allows. Refused before anything is sent when it is empty, too
 * large or not audio the device plays. On failure, whatever of it the device listed is removed again.
 */
export async function uploadPrompt(c: Invoker, input: PromptUpload): Promise<Prompt> {
  const given = input.name ?? (typeof input.file === 'string' ? basename(input.file) : 'prompt');
  let source = await openSource(input.file);
  try {
    const format = audioFormat(await source.read(0, 12), given);
    if (!format) throw speakerError('wrong_format', `${JSON.stringify(given)} is not MP3, WAV or raw PCM (.pcm) audio`);
    const name = format === 'pcm' ? `${basename(given, extname(given))}.wav` : given;
    if ([...name].length < 1 || [...name].length > 64) throw speakerError('bad_text', `file name ${JSON.stringify(name)}: 1-64 characters`);
    if (format === 'pcm') source = withHeader(wavHeader(source.size, input.pcm), source);
    if (source.size === 0 || (format === 'pcm' && source.size === 44)) throw speakerError('empty', `${JSON.stringify(given)} is empty`);
    const limits = input.limits ?? (await readPromptLimits(c));
    if (source.size > limits.fileMax)
      throw speakerError('too_large', `${JSON.stringify(given)} is ${source.size} bytes; the device takes at most ${limits.fileMax} bytes`);
    const before = promptList((await call(() => c.invoke(voicePromptsGet, { control_type: 'Normal' }))).audio_list);
    try {
      return await sendPackets(c, source, name, limits, before, input.onPacket);
    } catch (err) {
      throw await cleanedUp(c, before, name, err);
    }
  } finally {
    await source.close();
  }
}

async function sendPackets(
  c: Invoker,
  source: Source,
  name: string,
  limits: PromptLimits,
  before: readonly Prompt[],
  onPacket?: (sent: number, count: number) => void,
): Promise<Prompt> {
  const count = Math.ceil(source.size / limits.packetSize);
  let answer: VoicePromptsAnswer = {};
  for (let i = 0; i < count; i++) {
    const bytes = await source.read(i * limits.packetSize, limits.packetSize);
    const packet: VoicePromptsSetRequest = {
      control_type: 'Normal',
      command: 'Upload',
      convert_mode: 'File',
      file_name: name,
      file_count: count,
      packet_index: i,
      package_size: bytes.length,
      file_data: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('base64'),
    };
    answer = await call(() => c.invoke(voicePromptsSet, packet, { skipRangeCheck: true }), `packet ${i + 1} of ${count}`);
    onPacket?.(i + 1, count);
  }
  return (await added(c, answer, before, name)) ?? throwMissing(name);
}

function throwMissing(name: string): never {
  throw new DeviceError({
    kind: 'invalid_answer',
    error_code: 'invalid_answer',
    reason: `the device did not list ${name} after its upload`,
    page: PAGE,
    operation: 'Set',
  });
}

/** The prompt named `name` that `answer` (else a fresh Get) lists and `before` did not. */
async function added(c: Invoker, answer: VoicePromptsAnswer, before: readonly Prompt[], name: string): Promise<Prompt | undefined> {
  const known = new Set(before.map((p) => p.index));
  const pick = (list: readonly string[] | undefined) =>
    promptList(list)
      .filter((p) => !known.has(p.index) && (p.name === name || p.name === basename(name, extname(name))))
      .at(-1);
  return pick(answer.audio_list) ?? pick((await c.invoke(voicePromptsGet, { control_type: 'Normal' })).audio_list);
}

/** After a failed upload: remove what the device listed of it; the error says whether that worked. */
async function cleanedUp(c: Invoker, before: readonly Prompt[], name: string, err: unknown): Promise<unknown> {
  try {
    const left = await added(c, {}, before, name);
    if (left) await c.invoke(voicePromptsSet, { control_type: 'Normal', command: 'Remove', index: left.index }, { skipRangeCheck: true });
    return err;
  } catch (cleanup) {
    if (!(err instanceof DeviceError)) return err;
    return new DeviceError({
      ...err.toJSON(),
      reason: `${err.reason}; removing the partial upload failed too (${String(cleanup)})`,
      cause: err,
    });
  }
}

/** ISO 639-1 codes to the converter's language names (Range sample). */
const ISO_LANGUAGES: Readonly<Record<string, string>> = {
  zh: '简体中文',
  'zh-tw': '繁體中文',
  cs: 'ČEŠTINA',
  da: 'DANSK',
  en: 'ENGLISH',
  fi: 'FINNISH',
  fr: 'FRANÇAIS',
  de: 'DEUTSCH',
  el: 'ΕΛΛΗΝΙΚΑ',
  he: 'עברית',
  hu: 'MAGYAR',
  it: 'ITALIANO',
  ja: '日 本 語',
  pl: 'POLSKI',
  pt: 'PORTUGUÊS',
  ru: 'РУССКИЙ',
  es: 'ESPAÑOL',
  th: 'ไ ท ย',
  sl: 'SLOVENIA',
  ro: 'ROMANIAN',
  bg: 'BULGARIAN',
  ar: 'ARABIC',
  hi: 'HINDI',
  vi: 'VIETNAM',
  nl: 'HOLLAND',
  tr: 'TURKEY',
  fa: 'PERSIAN',
  sv: 'SVENSKA',
  ko: 'KOREAN',
  id: 'INDONESIA',
  'pt-br': 'BRAZILE',
  uk: 'Українська',
  sk: 'SLOVENSKY',
};

/** A language as the device names it: its own name (any case) or an ISO code (`de`, `pt-BR`). */
export function promptLanguage(wanted: string, languages: readonly string[]): string {
  const w = wanted.trim();
  const own = languages.find((l) => l.toLowerCase() === w.toLowerCase());
  const iso = ISO_LANGUAGES[w.toLowerCase().replace('_', '-')];
  const found = own ?? (iso && languages.includes(iso) ? iso : undefined);
  if (!found)
    throw speakerError(
      'bad_language',
      `language ${JSON.stringify(wanted)}: the device speaks ${languages.join(', ')} (or their ISO codes)`,
    );
  return found;
}

export interface SayInput {
  text: string;
  /** The device's name or an ISO code; default the device's own language. */
  language?: string;
  /** The device's language as last read (`readSpeakers`), so that a say without one needs no read first. */
  deviceLanguage?: string;
  /** Speakers: `local`, or channel ids (with `slots` to number them). */
  targets: readonly string[];
  slots: readonly string[];
  limits?: PromptLimits;
}

/**
 * Speak `text` now: the device converts it into `nvr2mqtt-say` and plays it on `targets`; the earlier spoken file is
 * removed after the play (two device calls before the sound: the upload and the play).
 */
export async function say(c: Invoker, input: SayInput): Promise<Prompt> {
  const text = input.text.trim();
  const limits = input.limits ?? (await readPromptLimits(c));
  if (!text || [...text].length > limits.textMax)
    throw speakerError('bad_text', `text: 1-${limits.textMax} characters (got ${[...text].length})`);
  const numbers = input.targets.map((t) => speakerNumber(t, input.slots));
  // The device's own language only when neither the caller nor what it knew of the device names one.
  const fallback =
    input.language ??
    input.deviceLanguage ??
    (await call(() => c.invoke(voicePromptsGet, { control_type: 'Normal' }))).info?.language ??
    'ENGLISH';
  const language = promptLanguage(fallback, limits.languages.length ? limits.languages : [fallback]);
  const answer = await call(() =>
    c.invoke(
      voicePromptsSet,
      { control_type: 'Normal', command: 'Upload', convert_mode: limits.convertMode, text, language, file_name: SAY_FILE },
      { skipRangeCheck: true },
    ),
  );
  // Serial numbers grow: the newest spoken file is the one just made, the others are earlier sayings.
  const list = answer.audio_list ?? (await call(() => c.invoke(voicePromptsGet, { control_type: 'Normal' }))).audio_list;
  const spoken = promptList(list).filter((p) => p.name === SAY_FILE);
  const now = spoken.reduce<Prompt | undefined>((a, p) => (!a || p.index > a.index ? p : a), undefined) ?? throwMissing(SAY_FILE);
  await playNumbers(c, now.index, numbers);
  // Played first, tidied after: the earlier spoken files go (the list never fills with sayings).
  for (const old of spoken.filter((p) => p !== now))
    await call(() => c.invoke(voicePromptsSet, { control_type: 'Normal', command: 'Remove', index: old.index }, { skipRangeCheck: true }));
  return now;
}

/** Play a stored prompt now on `targets` (`local` or channel ids). */
export async function playPrompt(c: Invoker, index: number, targets: readonly string[], slots: readonly string[]): Promise<void> {
  await playNumbers(
    c,
    index,
    targets.map((t) => speakerNumber(t, slots)),
  );
}

async function playNumbers(c: Invoker, index: number, numbers: readonly number[]): Promise<void> {
  if (numbers.length === 0) throw speakerError('no_speaker', 'no speaker named to play on');
  await call(
    () =>
      c.invoke(
        voicePromptsSet,
        { control_type: 'Normal', command: 'Play', index, ipc_channel_info: [...numbers] },
        { skipRangeCheck: true },
      ),
    undefined,
    'no_speaker',
  );
}

export async function removePrompt(c: Invoker, index: number): Promise<Prompt[]> {
  const a = await call(() => c.invoke(voicePromptsSet, { control_type: 'Normal', command: 'Remove', index }, { skipRangeCheck: true }));
  return promptList(a.audio_list);
}

/** Stop what cameras behind an NVR play (IPCVoicePrompts StopPlaying: the only stop the vendor documents). */
export async function stopCameraPrompts(c: Invoker, channels: readonly string[]): Promise<void> {
  await call(
    () => c.invoke(ipcVoicePromptsSet, { command: 'StopPlaying', channel: [...channels] }, { skipRangeCheck: true }),
    undefined,
    'no_speaker',
  );
}

/**
 * One device call with the device's refusals said in the speaker's words: busy codes as `busy`, `no_support` as
 * `unsupported` (no such page) or `noSupport` (a speaker it cannot play on), an unknown file as `unknown_prompt`.
 */
async function call<T>(fn: () => Promise<T>, step?: string, noSupport: SpeakerProblem = 'unsupported'): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof DeviceError) || err.kind === 'session' || err.kind === 'transport' || err.kind === 'invalid_request') throw err;
    const at = step ? ` (${step})` : '';
    if (err.kind === 'busy') throw speakerError('busy', `the device is busy (${err.error_code}): try again later${at}`, err);
    if (err.error_code === 'no_support' || err.kind === 'unsupported')
      throw speakerError(
        noSupport,
        noSupport === 'no_speaker' ? `the device cannot play there: ${err.reason}` : `no voice prompts on this device: ${err.reason}`,
        err,
      );
    if (err.error_code === 'param_error') throw new DeviceError({ ...err.toJSON(), reason: `${err.reason}${at}`, cause: err });
    throw err;
  }
}
