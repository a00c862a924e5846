/**
 * Redaction of a capture (`nvr2mqtt capture`): an exchange holding every kind of secret the issue names (password,
 * CSRF token, cookie, push secret, serial number, MAC and IP addresses, P2P id, e-mail address, user name, plate
 * text, face name, a login in a stream URL, a picture) comes out with none of them, each value replaced by the same
 * stand-in wherever it appears, and the answer still parses the way the device sent it.
 */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { WireHeaders } from '../../core';
import { recorded } from '../../core/capture';
import { Redactor, blankPicture } from '../../core/redaction';
import { testPicture } from '../../simulator';

const test = suite('capture redaction');

const JPEG = testPicture(64, 48, ['CH1']);
const SECRETS = {
  password: 'Hunter2-pw!',
  csrf: 'Zx81CsrfTok3n',
  cookie: 'c00kieValue77',
  pushSecret: 'push-s3cret-abc',
  serial: 'N4K21A0099887',
  mac: '88-26-1D-AA-8E-E0',
  wifiMac: 'a4:5e:60:12:34:56',
  ip: '192.168.1.77',
  gateway: '192.168.1.1',
  p2p: 'RSV2JX3MKXY',
  email: 'owner.name@example.com',
  user: 'frontdoor_admin',
  plate: 'AB-123-CD',
  face: 'Jane Doe',
  rtspUser: 'viewer',
  rtspPassword: 'rtspP4ss',
};

function exchange() {
  const body = {
    result: 'success',
    data: {
      serialNum: SECRETS.serial,
      mac_address: SECRETS.mac,
      wireless_mac: SECRETS.wifiMac,
      ip_address: SECRETS.ip,
      gateway: SECRETS.gateway,
      p2p_id: SECRETS.p2p,
      software_version: 'V8.2.4.1-20221014',
      push: { secret: SECRETS.pushSecret, url: `http://${SECRETS.ip}:8089/push` },
      email: { address: SECRETS.email, username: SECRETS.user, password: SECRETS.password, password_empty: false },
      plates: [{ plate_text: SECRETS.plate }],
      face_list: [{ name: SECRETS.face, id: 3 }],
      channel_info: [
        {
          channel: 'CH1',
          mainstream_url: `rtsp://${SECRETS.rtspUser}:${SECRETS.rtspPassword}@${SECRETS.ip}:554/ch1`,
          note: `ask ${SECRETS.email}`,
        },
      ],
      img_data: JPEG.toString('base64'),
    },
  };
  return {
    path: '/API/SystemInfo/Base/Get',
    request: { version: '1.0', data: { username: SECRETS.user } },
    status: 200,
    headers: new WireHeaders({
      'content-type': 'application/json',
      'set-cookie': [`session_80=${SECRETS.cookie}; HttpOnly; path=/`],
      'x-csrftoken': SECRETS.csrf,
      server: 'hidden-server',
    }),
    text: JSON.stringify(body),
  };
}

test('no secret of any kind is left in the recorded exchange, and nothing else changed', () => {
  const redactor = new Redactor();
  const out = recorded(exchange(), redactor);
  const written = JSON.stringify(out);
  const left = Object.entries(SECRETS).filter(([, secret]) => written.includes(secret));
  assert.deepEqual(left, [], `secrets left: ${left.map(([k]) => k).join(', ')}`);
  assert.ok(!written.includes(JPEG.subarray(200, 260).toString('base64').slice(4, 40)), 'the picture content is gone');
  const data = (out.body as { data: Record<string, unknown> }).data;
  // What is no secret stays as the device sent it.
  assert.equal(data.software_version, 'V8.2.4.1-20221014');
  assert.equal((data.email as Record<string, unknown>).password_empty, false);
  assert.equal((data.face_list as Array<Record<string, unknown>>)[0].id, 3);
  assert.deepEqual(Object.keys(out.headers).sort(), ['content-type', 'set-cookie', 'x-csrftoken']);
  assert.match((out.headers['set-cookie'] as string[])[0], /^session_80=cookie-1; HttpOnly; path=\/$/);
  // Every kind named by the issue was found (counted once per distinct value).
  assert.deepEqual(redactor.replaced, {
    cookie: 1,
    token: 1,
    user: 2,
    serial: 1,
    mac: 2,
    ip: 2,
    p2p: 1,
    secret: 1,
    email: 1,
    password: 2,
    plate: 1,
    face: 1,
  });
  assert.equal(redactor.pictures, 1);
});

test('the same value always becomes the same stand-in, shaped like the original', () => {
  const redactor = new Redactor();
  const data = (recorded(exchange(), redactor).body as { data: Record<string, any> }).data;
  assert.match(data.mac_address, /^02-00-00-00-00-01$/);
  assert.match(data.wireless_mac, /^02:00:00:00:00:02$/);
  assert.match(data.ip_address, /^192\.0\.2\.\d+$/);
  // The device's address in its own member, in a push URL and in a stream URL: one stand-in.
  assert.ok(data.push.url.includes(`//${data.ip_address}:8089`));
  assert.ok(data.channel_info[0].mainstream_url.startsWith(`rtsp://user2:password-2@${data.ip_address}:554/`));
  // A second capture through the same redactor: the same stand-ins.
  const again = (recorded(exchange(), redactor).body as { data: Record<string, any> }).data;
  assert.equal(again.serialNum, data.serialNum);
  assert.equal(again.face_list[0].name, data.face_list[0].name);
});

test('a picture becomes a blank one of the same size and kind, unless kept', () => {
  const blank = blankPicture(JPEG);
  assert.equal(blank.length, JPEG.length);
  assert.deepEqual([...blank.subarray(0, 2)], [0xff, 0xd8]);
  assert.deepEqual([...blank.subarray(-2)], [0xff, 0xd9]);
  assert.notDeepEqual(blank, JPEG);
  const kept = (recorded(exchange(), new Redactor({ keepPictures: true })).body as { data: Record<string, unknown> }).data;
  assert.equal(kept.img_data, JPEG.toString('base64'));
});

test.run();
