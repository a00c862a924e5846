import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { digestAuthorization, digestResponse, parseAuthenticate, parseDigestChallenges, pickDigestChallenge } from '../../core/digest';

const test = suite('digest');

// RFC 7616 section 3.9.1: the same challenge offered with SHA-256 and MD5.
const RFC_HEADER = [
  'Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=SHA-256,',
  '  nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS",',
  'Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=MD5,',
  '  nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"',
].join(' ');
const RFC_REQUEST = {
  method: 'GET',
  uri: '/dir/index.html',
  username: 'Mufasa',
  password: 'Circle of Life',
  nc: 1,
  cnonce: 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ',
};

test('RFC 7616 3.9.1: two challenges in one header, SHA-256 preferred', () => {
  const all = parseDigestChallenges(RFC_HEADER);
  assert.is(all.length, 2);
  assert.equal(
    all.map((c) => c.algorithm),
    ['SHA-256', 'MD5'],
  );
  const c = all[0];
  assert.is(c.realm, 'http-auth@example.org');
  assert.equal(c.qop, ['auth', 'auth-int']);
  assert.is(c.nonce, '7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v');
  assert.is(c.opaque, 'FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS');
  // Order in the header does not matter: SHA-256 wins over MD5 offered first.
  const reversed = 'Digest realm="r", nonce="n", algorithm=MD5, qop=auth, Digest realm="r", nonce="n", algorithm=SHA-256, qop=auth';
  assert.is(pickDigestChallenge(reversed)!.algorithm, 'SHA-256');
});

test('RFC 7616 3.9.1 vector: SHA-256', () => {
  const c = parseDigestChallenges(RFC_HEADER).find((x) => x.algorithm === 'SHA-256')!;
  assert.is(digestResponse(c, RFC_REQUEST).response, '753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1');
});

test('RFC 7616 3.9.1 vector: MD5', () => {
  const c = parseDigestChallenges(RFC_HEADER).find((x) => x.algorithm === 'MD5')!;
  const header = digestAuthorization(c, RFC_REQUEST);
  assert.ok(header.startsWith('Digest '));
  assert.match(header, 'response="8ca523f5e9506fed4657c9700eebdbec"');
  assert.match(header, 'username="Mufasa"');
  assert.match(header, 'uri="/dir/index.html"');
  assert.match(header, 'nc=00000001');
  assert.match(header, 'cnonce="f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"');
  assert.match(header, 'qop=auth,');
  assert.match(header, 'algorithm=MD5');
  assert.match(header, 'opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"');
});

test('device challenge: unquoted algorithm, MD5 by default, random cnonce', () => {
  const c = pickDigestChallenge('Digest realm="RS realm", qop="auth", nonce="abc", opaque="xyz", algorithm=MD5')!;
  assert.is(c.algorithm, 'MD5');
  assert.is(pickDigestChallenge('Digest realm="RS realm", nonce="abc"')!.algorithm, 'MD5');
  const a = digestResponse(c, { method: 'POST', uri: '/API/Web/Login', username: 'admin', password: 'pw' });
  const b = digestResponse(c, { method: 'POST', uri: '/API/Web/Login', username: 'admin', password: 'pw' });
  assert.is.not(a.cnonce, b.cnonce);
  const md5 = (s: string) => createHash('md5').update(s).digest('hex');
  const expected = md5(`${md5('admin:RS realm:pw')}:abc:00000001:${a.cnonce}:auth:${md5('POST:/API/Web/Login')}`);
  assert.is(a.response, expected);
});

test('-sess variant and userhash', () => {
  const sha = (s: string) => createHash('sha256').update(s).digest('hex');
  const c = pickDigestChallenge('Digest realm="r", nonce="n", qop=auth, algorithm=SHA-256-sess, userhash=true')!;
  assert.is(c.algorithm, 'SHA-256-sess');
  assert.ok(c.userhash);
  const r = digestResponse(c, { method: 'POST', uri: '/x', username: 'u', password: 'p', cnonce: 'c' });
  const ha1 = sha(`${sha('u:r:p')}:n:c`);
  assert.is(r.response, sha(`${ha1}:n:00000001:c:auth:${sha('POST:/x')}`));
  assert.is(r.username, sha('u:r'));
  const header = digestAuthorization(c, { method: 'POST', uri: '/x', username: 'u', password: 'p', cnonce: 'c' });
  assert.match(header, `username="${sha('u:r')}"`);
  assert.match(header, 'userhash=true');
});

test('RFC 2069 challenge without qop, escaped quotes, Basic beside Digest', () => {
  const list = parseAuthenticate('Basic realm="b", Digest realm="say \\"hi\\"", nonce="n"');
  assert.equal(
    list.map((c) => c.scheme),
    ['Basic', 'Digest'],
  );
  assert.is(list[1].params.realm, 'say "hi"');
  const c = pickDigestChallenge('Basic realm="b", Digest realm="r", nonce="n"')!;
  assert.equal(c.qop, []);
  const md5 = (s: string) => createHash('md5').update(s).digest('hex');
  const r = digestResponse(c, { method: 'POST', uri: '/x', username: 'u', password: 'p' });
  assert.is(r.response, md5(`${md5('u:r:p')}:n:${md5('POST:/x')}`));
  assert.not.match(digestAuthorization(c, { method: 'POST', uri: '/x', username: 'u', password: 'p' }), 'qop=');
  assert.is(pickDigestChallenge('Basic realm="b"'), undefined);
  assert.is(pickDigestChallenge('Digest realm="r", nonce="n", algorithm=SHA-999'), undefined);
});

test('password never appears in the Authorization header', () => {
  const c = pickDigestChallenge('Digest realm="RS realm", qop="auth", nonce="abc"')!;
  const header = digestAuthorization(c, { method: 'POST', uri: '/API/Web/Login', username: 'admin', password: 'S3cret-pw' });
  assert.not.match(header, 'S3cret-pw');
});

test.run();
