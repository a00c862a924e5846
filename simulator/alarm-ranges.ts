/**
 * Range of the alarm settings pages that say which alarms a channel supports (vendor: Motion, PIR, IO Range). A
 * channel supports the alarm iff the page lists it; members follow the channel's hardware (light/siren/red-blue
 * linkage only where the camera has them). Served as Range only: their Get/Set are not simulated.
 */
import type { ChannelSpec, Profile } from './profiles';
import { RangeMap, arr, bool, int, list, obj } from './descriptors';
import type { RangePage } from './page-def';
import { DAYS } from './days';
import { COPY_CH } from './ranges';

const schedule = (type: string) =>
  arr(
    obj({
      schedule_type: list([type]),
      week: arr(obj({ day: list(DAYS), time: arr(int(0, 1), { size: 48 }) }), { size: 7 }),
    }),
    { min_size: 0, max_size: 1 },
  );

/** Alarm outputs a linkage may drive: the recorder's own and those of cameras with outputs. */
const outputs = (p: Profile) => [
  ...Array.from({ length: p.name === 'ipc' ? 1 : 2 }, (_, i) => `Local->${i + 1}`),
  ...(p.name === 'nvr' ? p.channels.filter((c) => c.configured && c.kind !== 'analog' && c.alarmOut > 0).map((c) => `${c.id}->1`) : []),
];

function linkage(ch: ChannelSpec, p: Profile, scheduleType: string, sensitivityMax: number): RangeMap {
  const chans = p.channels.filter((c) => c.configured).map((c) => c.id);
  return {
    switch: bool(),
    sensitivity: int(1, sensitivityMax, { default_value: Math.ceil(sensitivityMax / 2) }),
    buzzer: list(['Off', '10', '20', '40', '60']),
    alarm_out: arr(list(outputs(p)), { min_size: 0, max_size: outputs(p).length }),
    latch_time: list(['10', '20', '40', '60']),
    record_enable: bool({ default_value: true }),
    record_channel: arr(list(chans), { min_size: 0, max_size: chans.length }),
    post_recording: list(['10', '15', '20', '30', '60', '120', '300'], { default_value: '30' }),
    show_message: bool(),
    send_email: bool(),
    http_listening: bool(),
    ...(ch.floodlight ? { light_linkage: bool() } : {}),
    ...(ch.siren ? { siren_linkage: bool() } : {}),
    ...(ch.redBlueLight ? { enforcerlight_linkage: bool() } : {}),
    schedule: schedule(scheduleType),
    // The vendor's Motion Set sample carries the UI's copy action (`copy_ch: "all"`).
    ...(p.name === 'nvr' ? { copy_ch: list(COPY_CH) } : {}),
  };
}

const top = (p: Profile): RangeMap => ({
  channel_max: p.channels.length,
  ...(p.name === 'nvr' ? { support_copy: true } : {}),
  page_type: 'AlarmConfig',
});

/** AlarmConfig/Motion */
export const MOTION_RANGE: RangePage = {
  top,
  channel: (ch, p) => ({
    ...linkage(ch, p, 'Motion', 8),
    intervals: int(1, 256, { default_value: 5 }),
    ...(ch.ai.includes('PVD') ? { target_type: list(['Motion', 'Pedestrian', 'Vehicle', 'Pedestrian & Vehicle']) } : {}),
  }),
};

/** AlarmConfig/PIR */
export const PIR_RANGE: RangePage = {
  top,
  channel: (ch, p) => linkage(ch, p, 'PIR', 5),
  covers: (ch) => ch.pir,
};

/** AlarmConfig/IO */
export const IO_RANGE: RangePage = {
  // Keyed by input: the recorder's `Local<-n`, a camera's `IP_CH5<-1`.
  top: (p) => {
    const inputs = [
      ...Array.from({ length: p.name === 'ipc' ? 1 : 4 }, (_, i) => `Local<-${i + 1}`),
      ...(p.name === 'nvr' ? p.channels.filter((c) => c.configured && c.kind !== 'analog' && c.alarmIn > 0).map((c) => `${c.id}<-1`) : []),
    ];
    const chans = p.channels.filter((c) => c.configured).map((c) => c.id);
    const input = obj({
      alarm_type: list(['NormallyOpen', 'NormallyClose', 'Off'], { default_value: 'Off' }),
      buzzer: list(['Off', '10', '20', '40', '60']),
      alarm_out: arr(list(outputs(p)), { min_size: 0, max_size: outputs(p).length }),
      latch_time: list(['10', '20', '40', '60']),
      record_enable: bool(),
      channel: arr(list(chans), { min_size: 0, max_size: chans.length }),
      schedule: schedule('IO'),
    });
    return { channel_max: inputs.length, channel_info: obj(Object.fromEntries(inputs.map((i) => [i, input]))) };
  },
};
