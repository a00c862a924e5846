import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { diskProblem, readStorage } from '../../core';
import { clientRig, rejection } from '../client/harness';
import * as V from './vendor';

/** Image control, motion and disk pages: core against the vendor's answer shapes, exact request bodies. */

const test = suite('conformance: channel settings pages');
const { setup, closeAll } = clientRig('Ch4nnel-pw');
test.after.each(closeAll);

const IC = '/API/ChannelConfig/ImageControl';
type Data = Record<string, any>;

/** A Range in the vendor's descriptor form for the legacy camera CH14 of the Get sample. */
const imageRange = {
  channel_max: 16,
  channel_info: {
    type: 'object',
    items: {
      CH14: {
        type: 'object',
        items: {
          support_default: { type: 'bool', mode: 'r' },
          ir_cut_mode: { type: 'string', mode: 'rw', items: ['AutoMode', 'ColorMode', 'BlackWhiteMode', 'VideoMode', 'TimeSchedule'] },
          ir_cut_delay: { type: 'int32', mode: 'rw', min: 1, max: 36 },
          ir_led: { type: 'string', mode: 'rw', items: ['Off', 'On', 'Auto', 'Manual'] },
          start_time: { type: 'string', mode: 'rw', min_len: 5, max_len: 5 },
          end_time: { type: 'string', mode: 'rw', min_len: 5, max_len: 5 },
          mirror_mode: { type: 'string', mode: 'rw', items: ['Close', 'VerticalMirroring', 'HorizontalMirroring', 'All'] },
          angle_rotation: { type: 'string', mode: 'rw', items: ['0', '180'] },
          wdr_hide_ai_area: { type: 'bool', mode: 'rw' },
        },
      },
    },
  },
};

test('Image control: the vendor Get parses (legacy, full colour, offline); a day/night change is the block with chn_index and page', async () => {
  let state: Data = structuredClone(V.imageControlGet);
  const { dev, c } = await setup({
    handlers: {
      [`${IC}/Range`]: () => imageRange,
      [`${IC}/Get`]: () => state,
      [`${IC}/Set`]: (d) => {
        const block = (d as Data).channel_info.CH14;
        state = { channel_info: { ...state.channel_info, CH14: { ...state.channel_info.CH14, ir_cut_mode: block.ir_cut_mode } } };
        return {};
      },
    },
  });
  const get = await c.get('ChannelConfig/ImageControl');
  assert.equal((get.channel_info as Data).CH15.FullColorMode, { white_light: 'Auto', image_sensitivity: 1 });
  const after = await c.update('ChannelConfig/ImageControl', { channel_info: { CH14: { ir_cut_mode: 'ColorMode' } } });
  assert.is((after.channel_info as Data).CH14.ir_cut_mode, 'ColorMode');
  const [set] = dev.bodies(`${IC}/Set`) as Data[];
  assert.equal(Object.keys(set.channel_info), ['CH14'], 'only the touched channel');
  const block = set.channel_info.CH14;
  assert.equal([block.ir_cut_mode, block.ir_led, block.chn_index, block.page], ['ColorMode', 'Auto', 'CH14', 'chn_imgCtrl']);
  assert.is(block.support_default, undefined, 'a read-only member is left out');
});

test("Image control: a day/night value the camera's Range does not offer is refused; nothing is sent", async () => {
  const { dev, c } = await setup({
    handlers: { [`${IC}/Range`]: () => imageRange, [`${IC}/Get`]: () => V.imageControlGet, [`${IC}/Set`]: () => ({}) },
  });
  // `Night` is the full-colour camera's word; CH14 is a legacy camera.
  const err = await rejection(c.update('ChannelConfig/ImageControl', { channel_info: { CH14: { ir_cut_mode: 'Night' } } }));
  assert.is(err.error_code, 'out_of_range');
  assert.is(dev.count(`${IC}/Set`), 0);
});

/** The vendor's Range sample for the full-colour camera CH15: white light listed flat beside the other members. */
const fullColourRange = {
  channel_max: 16,
  channel_info: {
    type: 'object',
    items: {
      CH15: {
        type: 'object',
        items: {
          support_default: { type: 'bool' },
          ir_cut_mode: { type: 'string', items: ['Auto', 'Day', 'Night', 'Image', 'Schedule'] },
          mirror_mode: { type: 'string', items: ['Close', 'VerticalMirroring', 'HorizontalMirroring', 'All'] },
          corridor_mode: { type: 'string', items: ['Close', 'Open'] },
          angle_rotation: { type: 'string', items: ['0', '180'] },
          wdr_hide_ai_area: { type: 'bool' },
          image_setting: { type: 'string', items: ['FullColorMode', 'DayNightMode', 'Schedule', 'SmartIllumination'] },
          white_light: { type: 'string', items: ['Auto', 'Manual', 'Schedule', 'OFF'] },
          light_distance: { type: 'int32', min: 0, max: 100 },
          image_sensitivity: { type: 'int32', items: [0, 1, 2, 3] },
        },
      },
    },
  },
};

test('Image control: the white light the Get nests in FullColorMode is checked against the flat Range and written nested', async () => {
  let state: Data = structuredClone(V.imageControlGet);
  const { dev, c } = await setup({
    handlers: {
      [`${IC}/Range`]: () => fullColourRange,
      [`${IC}/Get`]: () => state,
      [`${IC}/Set`]: (body: Data) => {
        state = structuredClone(state);
        state.channel_info.CH15.FullColorMode = { ...state.channel_info.CH15.FullColorMode, ...body.channel_info.CH15.FullColorMode };
        return {};
      },
    },
  });
  const after = await c.update('ChannelConfig/ImageControl', { channel_info: { CH15: { FullColorMode: { white_light: 'Manual' } } } });
  assert.is((after.channel_info as Data).CH15.FullColorMode.white_light, 'Manual');
  const [set] = dev.bodies(`${IC}/Set`) as Data[];
  const block = set.channel_info.CH15;
  assert.equal(block.FullColorMode, { white_light: 'Manual', image_sensitivity: 1 }, 'the group sent back whole, nested as the Get has it');
  assert.equal([block.chn_index, block.page, block.white_light], ['CH15', 'chn_imgCtrl', undefined]);
  const err = await rejection(c.update('ChannelConfig/ImageControl', { channel_info: { CH15: { FullColorMode: { white_light: 'On' } } } }));
  assert.is(err.error_code, 'out_of_range');
  assert.match(String(err.violations?.[0]?.path), 'channel_info.CH15.FullColorMode.white_light');
  assert.is(dev.count(`${IC}/Set`), 1, 'the out-of-Range value was not sent');
});

test('Motion: Range and Get ask with page_type AlarmConfig (the vendor samples); the linkage-only answer parses', async () => {
  const { dev, c } = await setup({
    handlers: {
      '/API/AlarmConfig/Motion/Range': () => ({ channel_max: 16, channel_info: { type: 'object', items: {} } }),
      '/API/AlarmConfig/Motion/Get': () => ({
        channel_info: {
          CH1: { buzzer: '0', alarm_out: [], latch_time: '10', record_enable: true, record_channel: ['CH1'], send_email: false },
          CH2: { reason: 'Not configured' },
        },
      }),
    },
  });
  await c.range('AlarmConfig/Motion');
  const get = await c.get('AlarmConfig/Motion');
  assert.is((get.channel_info as Data).CH1.send_email, false);
  assert.equal(dev.bodies('/API/AlarmConfig/Motion/Range'), [{ page_type: 'AlarmConfig' }]);
  assert.equal(dev.bodies('/API/AlarmConfig/Motion/Get'), [{ page_type: 'AlarmConfig' }]);
});

test("Storage: the vendor's Disk Get read as disks (MB, seconds, used = total - free); a full disk is a problem only without overwrite", async () => {
  let answer: Data = V.diskGet;
  const { dev, c } = await setup({ handlers: { '/API/StorageConfig/Disk/Get': () => answer } });
  const s = await readStorage(c);
  assert.equal(s, {
    overwrite: 'Auto',
    disks: [
      {
        id: 1,
        type: 'Normal',
        model: 'TOSHIBA MQ01ABD050V',
        status: 'Full',
        totalMb: 476940,
        freeMb: 0,
        usedMb: 476940,
        timeLeftS: 0,
        problem: false,
      },
    ],
  });
  assert.equal(dev.bodies('/API/StorageConfig/Disk/Get'), [{}]);
  answer = { ...V.diskGet, over_write: 'Off' };
  assert.is((await readStorage(c)).disks[0].problem, true);
  for (const status of ['NoHdd', 'Unformat', 'HddError', 'Broken']) assert.ok(diskProblem(status, 'Auto'), status);
  for (const status of ['Normal', 'Full', 'ReadOnly', 'Rebuilding']) assert.not.ok(diskProblem(status, 'Auto'), status);
});

test.run();
