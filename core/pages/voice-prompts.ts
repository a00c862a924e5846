import * as v from 'valibot';
import { members } from '../members';
import { definePage } from '../page';
import { GenericRange, optInt, optString } from './common';

/**
 * `AlarmConfig/VoicePrompts` (vendor-facts-next 3.1): the recorder's audio files. Get lists them (`audio_list`,
 * `"<serial>_<name>"`) with `info`; Set carries one `command`: `Upload` (a file in packets, or text the device
 * converts to speech), `Remove`, `Transform`/`Exit` (a copy for listening remotely), `Play` (now, on the recorder's
 * speaker, 255, or cameras by 0-based channel). `Extended/IPCVoicePrompts` (3.2): the prompts of the cameras behind
 * an NVR. Carried out through core/speaker.ts, not `update()`.
 */

export const PROMPT_COMMANDS = ['Upload', 'Remove', 'Transform', 'Exit', 'Play'] as const;
export const PROMPT_CONTROL_TYPES = ['Normal', 'AiFace', 'AiPlate'] as const;
/** `File`: a file in packets; `LocalText` (Set table) / `NetworkText` (Range): the device converts text. */
export const PROMPT_CONVERT_MODES = ['File', 'LocalText', 'NetworkText'] as const;
/** `ipc_channel_info` value for the recorder's own speaker. */
export const LOCAL_SPEAKER = 255;

/** Get table 3: the device's language, the cameras able to play (table: string array; Set table: array), the url. */
export const VoicePromptsInfo = v.looseObject({
  language: optString,
  ipc_channel_info: v.optional(v.array(v.union([v.string(), v.number()]))),
  url: optString,
});

export const VoicePromptsGetRequest = v.looseObject({
  control_type: v.optional(v.picklist(PROMPT_CONTROL_TYPES)),
  download_mode: optString,
  license_plate: optString,
  /** The Get sample sends `command: "GetAudioFilesList "`; nothing else needs it. */
  command: optString,
});
export type VoicePromptsGetRequest = v.InferInput<typeof VoicePromptsGetRequest>;

/** Get and every Set that changes the list answer the list; Play, Transform and Exit answer `{}`. */
export const VoicePromptsAnswer = v.looseObject({
  audio_list: v.optional(v.array(v.string())),
  info: v.optional(VoicePromptsInfo),
});
export type VoicePromptsAnswer = v.InferOutput<typeof VoicePromptsAnswer>;

const uint16 = v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(65535)));

export const VoicePromptsSetRequest = v.looseObject({
  command: v.picklist(PROMPT_COMMANDS),
  control_type: v.optional(v.picklist(PROMPT_CONTROL_TYPES)),
  convert_mode: v.optional(v.picklist(PROMPT_CONVERT_MODES)),
  ...members(['packet_index', 'file_count', 'index'], uint16),
  package_size: optInt,
  ...members(['file_name', 'file_data', 'text', 'language', 'download_mode', 'license_plate'], optString),
  ipc_channel_info: v.optional(v.array(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(255)))),
});
export type VoicePromptsSetRequest = v.InferInput<typeof VoicePromptsSetRequest>;

export const voicePromptsPage = definePage({
  name: 'AlarmConfig/VoicePrompts',
  title: 'Voice prompts',
  getRequest: { control_type: 'Normal' },
  operations: {
    Range: {
      request: v.looseObject({ control_type: v.optional(v.picklist(PROMPT_CONTROL_TYPES)) }),
      response: GenericRange,
      description: 'Voice prompts: languages of the text converter, packet and file size limits, text length.',
    },
    Get: {
      request: VoicePromptsGetRequest,
      response: VoicePromptsAnswer,
      description: 'The stored audio files and the cameras able to play.',
    },
    Set: {
      request: VoicePromptsSetRequest,
      response: VoicePromptsAnswer,
      description: 'Upload (a file in packets, or text to speech), Remove, Transform, Exit or Play an audio file.',
    },
  },
  readOnly: true,
});
export const { Range: voicePromptsRange, Get: voicePromptsGet, Set: voicePromptsSet } = voicePromptsPage.operations;

export const IPC_PROMPT_COMMANDS = ['GetAudioFilesList', 'GetAudioIndex', 'ConfigureAudioIndex', 'PlayAudio', 'StopPlaying'] as const;

/** A camera's state and chosen file (table 3 names the state `state`, the samples `status`). */
export const IpcPromptChannel = v.looseObject({ ...members(['status', 'state'], optString), audio_index: optInt });

export const IpcVoicePromptsRequest = v.looseObject({
  command: v.picklist(IPC_PROMPT_COMMANDS),
  channel: v.optional(v.array(v.string())),
  channel_info: v.optional(v.record(v.string(), v.looseObject({ audio_index: optInt }))),
});
export type IpcVoicePromptsRequest = v.InferInput<typeof IpcVoicePromptsRequest>;

export const IpcVoicePromptsAnswer = v.looseObject({
  audio_list: v.optional(v.array(v.string())),
  channel_info: v.optional(v.record(v.string(), IpcPromptChannel)),
});

/** The Get and Set pages take the same commands (vendor tables). */
export const ipcVoicePromptsPage = definePage({
  name: 'Extended/IPCVoicePrompts',
  title: 'Voice prompts of the cameras behind an NVR',
  // A Get names what it reads; the list of the cameras' files is the plain read.
  getRequest: { command: 'GetAudioFilesList' },
  operations: {
    Get: {
      request: IpcVoicePromptsRequest,
      response: IpcVoicePromptsAnswer,
      description: "The cameras' audio files (GetAudioFilesList) or each camera's chosen file (GetAudioIndex).",
    },
    Set: {
      request: IpcVoicePromptsRequest,
      response: IpcVoicePromptsAnswer,
      description: "Choose a camera's file (ConfigureAudioIndex), play it or stop (PlayAudio, StopPlaying) on IP channels.",
    },
  },
  readOnly: true,
});
export const { Get: ipcVoicePromptsGet, Set: ipcVoicePromptsSet } = ipcVoicePromptsPage.operations;
