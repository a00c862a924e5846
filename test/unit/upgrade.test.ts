import { mkdtemp, rm, truncate, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DeviceError } from '../../core/errors';
import { prepareUpgrade } from '../../core/upgrade';

const test = suite('prepareUpgrade');
let dir = '';
const MiB = 1 << 20;

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nvr2mqtt-upgrade-'));
});
test.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A file of `size` bytes without writing them: sparse, so 200 MiB costs no disk and no memory. */
async function sparse(name: string, size: number): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, Buffer.from([0x52, 0x53])); // "RS" magic at the start
  await truncate(path, size);
  return path;
}

async function refused(p: Promise<unknown>, reason: RegExp): Promise<DeviceError> {
  try {
    await p;
  } catch (err) {
    assert.instance(err, DeviceError);
    const e = err as DeviceError;
    assert.is(e.kind, 'invalid_request');
    assert.is(e.error_code, 'invalid_firmware');
    assert.is(e.page, 'Maintenance/SystemUpgrade');
    assert.is(e.operation, 'Token');
    assert.match(e.reason, reason);
    return e;
  }
  assert.unreachable('expected a refusal');
  throw new Error('unreachable');
}

const bytes = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 7 + 3) & 0xff);

test('from a buffer: size, and a head of exactly 3072 byte values', async () => {
  const buf = bytes(5000);
  const r = await prepareUpgrade({ file: buf, file_name: 'N7516_V8.2.4.sw' });
  assert.is(r.file_name, 'N7516_V8.2.4.sw');
  assert.is(r.file_size, 5000);
  assert.is(r.upgrade_head.length, 3072);
  assert.equal(r.upgrade_head, Array.from(buf.subarray(0, 3072)));
  assert.ok(r.upgrade_head.every((b) => Number.isInteger(b) && b >= 0 && b <= 255));
});

test('from a path: name defaults to the base name, same head as from the buffer', async () => {
  const buf = bytes(4096);
  const path = join(dir, 'fw-main.sw');
  await writeFile(path, buf);
  const r = await prepareUpgrade({ file: path });
  assert.is(r.file_name, 'fw-main.sw');
  assert.is(r.file_size, 4096);
  assert.is(r.upgrade_head.length, 3072);
  assert.equal(r.upgrade_head, (await prepareUpgrade({ file: buf })).upgrade_head);
});

test('a file shorter than 3072 bytes is refused: upgrade_head must have 3072 elements', async () => {
  const path = join(dir, 'tiny.sw');
  await writeFile(path, bytes(3071));
  await refused(prepareUpgrade({ file: path }), /3071 bytes; a firmware image has at least 3072 bytes/);
  await refused(prepareUpgrade({ file: bytes(100), file_name: 'x.sw' }), /100 bytes/);
  assert.is((await prepareUpgrade({ file: bytes(3072), file_name: 'x.sw' })).upgrade_head.length, 3072);
});

test('file names: 256 characters accepted, 257 refused', async () => {
  const buf = bytes(3072);
  assert.is((await prepareUpgrade({ file: buf, file_name: 'a'.repeat(256) })).file_name.length, 256);
  await refused(prepareUpgrade({ file: buf, file_name: 'a'.repeat(257) }), /257 characters.*at most 256/);
});

test('size: 100 MiB accepted, 100 MiB + 1 refused', async () => {
  const ok = await prepareUpgrade({ file: await sparse('100.sw', 100 * MiB) });
  assert.is(ok.file_size, 100 * MiB);
  assert.equal(ok.upgrade_head.slice(0, 3), [0x52, 0x53, 0]);
  assert.is(ok.upgrade_head.length, 3072);
  await refused(prepareUpgrade({ file: await sparse('100+1.sw', 100 * MiB + 1) }), /104857601 bytes.*at most 104857600 bytes \(100 MiB\)/);
});

test('large-capacity models: up to 200 MiB', async () => {
  const path150 = await sparse('150.sw', 150 * MiB);
  await refused(prepareUpgrade({ file: path150 }), /at most 104857600/);
  assert.is((await prepareUpgrade({ file: path150 }, { largeCapacity: true })).file_size, 150 * MiB);
  assert.is((await prepareUpgrade({ file: await sparse('200.sw', 200 * MiB) }, { largeCapacity: true })).file_size, 200 * MiB);
  await refused(
    prepareUpgrade({ file: await sparse('200+1.sw', 200 * MiB + 1) }, { largeCapacity: true }),
    /at most 209715200 bytes \(200 MiB, large-capacity model\)/,
  );
});

test('empty file, empty buffer, missing file and a directory are refused', async () => {
  const empty = join(dir, 'empty.sw');
  await writeFile(empty, '');
  await refused(prepareUpgrade({ file: empty }), /empty/);
  await refused(prepareUpgrade({ file: new Uint8Array(0), file_name: 'x.sw' }), /empty/);
  await refused(prepareUpgrade({ file: join(dir, 'missing.sw') }), /cannot read firmware file .*ENOENT/);
  await mkdir(join(dir, 'sub'));
  await refused(prepareUpgrade({ file: join(dir, 'sub') }), /not a regular file/);
});

test.run();
