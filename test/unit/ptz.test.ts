import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isPtzHex, ptzIndexToHex, ptzPresetIndices } from '../../core/ptz';

const test = suite('PTZ preset index forms');
const zeros = (bytes: number) => '00'.repeat(bytes);

test('old int form is the index itself (0 = None)', () => {
  assert.equal(ptzPresetIndices(7), [7]);
  assert.equal(ptzPresetIndices(0), [0]);
  assert.equal(ptzPresetIndices(255), [255]);
});

test('old int form outside 0-255 or not an integer is refused', () => {
  for (const bad of [256, -1, 1.5, Number.NaN]) assert.throws(() => ptzPresetIndices(bad), /integer 0-255/);
});

test('hex form, little-endian: first two digits are byte 0, bit 0 of byte 0 is None', () => {
  assert.equal(ptzPresetIndices('0f' + zeros(31)), [0, 1, 2, 3]);
  assert.equal(ptzPresetIndices('02' + zeros(31)), [1]); // preset 1 only, no None
  assert.equal(ptzPresetIndices('0001' + zeros(30)), [8]); // byte 1, least significant bit
  assert.equal(ptzPresetIndices(zeros(31) + '80'), [255]); // last byte, most significant bit
  assert.equal(ptzPresetIndices(zeros(32)), []);
  assert.equal(ptzPresetIndices('FF' + zeros(31)), [0, 1, 2, 3, 4, 5, 6, 7]); // upper case accepted
});

test('round trip: indices -> hex -> indices, and the example hex back to itself', () => {
  const example = '0f' + zeros(15) + '10' + zeros(14) + '80';
  const indices = ptzPresetIndices(example);
  assert.equal(indices, [0, 1, 2, 3, 132, 255]);
  assert.is(ptzIndexToHex(indices), example);
  const all = Array.from({ length: 256 }, (_, i) => i);
  assert.equal(ptzPresetIndices(ptzIndexToHex(all)), all);
  assert.is(ptzIndexToHex([]), zeros(32));
  assert.ok(isPtzHex(ptzIndexToHex([5])));
});

test('malformed hex strings are refused with a clear message', () => {
  assert.throws(() => ptzPresetIndices('0f'), /64 hex digits \(256 bits\), got 2 characters/);
  assert.throws(() => ptzPresetIndices('0f' + zeros(32)), /got 66 characters/);
  assert.throws(() => ptzPresetIndices('0g' + zeros(31)), /not a hex digit/);
  assert.throws(() => ptzPresetIndices('0x' + zeros(31)), /not a hex digit/);
  assert.throws(() => ptzPresetIndices(undefined as unknown as string), /int 0-255 or a 64-digit hex string/);
});

test('ptzIndexToHex refuses indices outside 0-255', () => {
  assert.throws(() => ptzIndexToHex([256]), /integer 0-255/);
  assert.throws(() => ptzIndexToHex([1.5]), /integer 0-255/);
});

test.run();
