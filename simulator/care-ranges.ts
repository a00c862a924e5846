/**
 * Range of the pages users change every week (vendor-facts-more k, p): image control (day/night IR-cut, IR LEDs),
 * record configuration (recording on/off) and video cover (privacy mask). Value lists and bounds as the vendor's
 * tables and samples give them.
 */
import type { ChannelSpec, Profile } from './profiles';
import { RangeMap, arr, bool, int, list, obj, ro, text } from './descriptors';
import type { RangePage } from './page-def';
import { COPY_CH } from './ranges';

const nvr = (p: Profile) => p.name === 'nvr';
const top = (p: Profile): RangeMap => ({ channel_max: p.channels.length, ...(nvr(p) ? { support_copy: true } : {}) });

/** Exposure set of one period (k.2); only the members the vendor's Get and Set samples carry. */
const exposure = () =>
  obj({
    back_light: list(['Close', 'WDR', 'HLC', 'BacklightCompensation']),
    denoising: list(['Auto', 'Close', 'Manual']),
    denoising_level: int(1, 255, { default_value: 128 }),
    gain: int(1, 128, { default_value: 64 }),
    white_balance: list(['Auto', 'Manual', 'Indoor']),
    red_tuning: int(1, 255, { default_value: 44 }),
    green_tuning: int(1, 255, { default_value: 27 }),
    blue_tuning: int(1, 255, { default_value: 54 }),
    exposure_mode: list(['Auto', 'Manual']),
    shutter_limit: list(['1/8', '1/5', '1/15', '1/25', '1/50', '1/100']),
    defog_mode: list(['Disable', 'Auto', 'Manual']),
    defogging_level: int(1, 255, { default_value: 128 }),
  });

/**
 * ChannelConfig/ImageControl. Cameras with a light sensor switch by `AutoMode`; the vendor's names for the
 * sensor-less video mode differ (`VideoMode` in the table, `ImageMode` in the Set sample): both are offered.
 */
export const IMAGE_CONTROL_RANGE: RangePage = {
  top,
  channel: (ch: ChannelSpec) => ({
    support_default: ro(bool({ default_value: true })),
    ir_cut_mode: list(['AutoMode', 'ColorMode', 'BlackWhiteMode', 'ImageMode', 'TimeSchedule']),
    image_sensitivity: int(0, 3, { default_value: 1 }),
    start_time: text(5, 5, { default_value: '00:00' }),
    end_time: text(5, 5, { default_value: '00:00' }),
    ir_cut_delay: int(1, 36, { default_value: 2 }),
    ...(ch.floodlight ? {} : { ir_led: list(['Auto', 'On', 'Off', 'Manual']) }),
    mirror_mode: list(['Close', 'VerticalMirroring', 'HorizontalMirroring', 'All']),
    corridor_mode: list(['Close', 'Open']),
    angle_rotation: list(['0', '180']),
    camera_param_mode: list(['Daylight', 'Night']),
    Daylight: exposure(),
    Night: exposure(),
    wdr_hide_ai_area: bool(),
    // A full-colour camera (vendor Range sample CH15): its Get nests these in `FullColorMode`, the Range lists them flat.
    ...(ch.fullColour
      ? {
          image_setting: list(['FullColorMode', 'DayNightMode', 'Schedule', 'SmartIllumination']),
          white_light: list(['Auto', 'Manual', 'Schedule', 'OFF']),
          light_distance: int(0, 100, { default_value: 50 }),
        }
      : {}),
  }),
  // Analog and digital cameras alike; a Wi-Fi battery camera has no image settings here.
  covers: (ch) => ch.kind !== 'wifi',
};

/** RecordConfig (p): recording on/off per channel. */
export const RECORD_RANGE: RangePage = {
  top,
  channel: (_ch, p) => ({
    record_switch: bool({ default_value: true }),
    ...(nvr(p) ? { stream_mode: list(['DualStream', 'Mainstream']) } : { net_break_record: bool() }),
    prerecord: bool({ default_value: true }),
    anr: bool(),
    manual_record: ro(bool()),
    ...(nvr(p) ? { copy_ch: list(COPY_CH) } : {}),
  }),
};

/** ChannelConfig/VideoCover (p): privacy mask per channel, zones on a 704x576 grid. */
export const VIDEO_COVER_RANGE: RangePage = {
  top,
  channel: () => ({
    privacy_zone_enable: bool(),
    zone_info: arr(
      obj({
        zone_no: int(1, 8),
        zone_enable: bool(),
        rect: obj({ left: int(0, 704), top: int(0, 576), width: int(0, 704), height: int(0, 576) }),
      }),
      { min_size: 0, max_size: 4 },
    ),
  }),
  covers: (ch) => ch.kind !== 'wifi',
};
