/**
 * RTSP playback (vendor page "Playback rtsp url", vendor-facts-next §1.3): `rtsp://ip:port/rtsp/playback?channel=1&
 * subtype=0&starttime=YYYY-MM-DDTHH:MM:SSZ&endtime=...&localtime=true` (and the cameras' `/cam/playback`), served on the
 * web port as the simulator's stream addresses say. The video is a real H.264 test pattern (Debian's ffmpeg encodes it
 * once, 10 frames a second, a key frame each second), sent over RTP interleaved in the RTSP connection (TCP) for as
 * long as the range asked, then the connection ends. Basic authentication with the device's login.
 */
import { execFileSync } from 'node:child_process';
import type { Socket } from 'node:net';
import type { Device } from './device';
import { localToMs } from './local-time';

const FPS = 10;
const RTP_CLOCK = 90_000;
const MAX_PAYLOAD = 1400;

interface Clip {
  sps: Buffer;
  pps: Buffer;
  /** Access units: the NAL units of each frame (without start codes). */
  frames: Buffer[][];
}

let clip: Clip | undefined;

/** The test pattern as H.264 (Annex B from ffmpeg), split into frames. */
function testClip(): Clip {
  if (clip) return clip;
  const raw = execFileSync(
    'ffmpeg',
    [
      ...['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', `testsrc=size=320x240:rate=${FPS}`, '-t', '10'],
      ...['-c:v', 'libx264', '-profile:v', 'baseline', '-pix_fmt', 'yuv420p', '-g', String(FPS), '-bf', '0', '-f', 'h264', '-'],
    ],
    { maxBuffer: 16 << 20 },
  );
  const nals: Buffer[] = [];
  let start = -1;
  for (let i = 0; i + 3 <= raw.length; i++) {
    const three = raw[i] === 0 && raw[i + 1] === 0 && raw[i + 2] === 1;
    if (!three) continue;
    if (start >= 0) nals.push(raw.subarray(start, raw[i - 1] === 0 ? i - 1 : i));
    start = i + 3;
    i += 2;
  }
  if (start >= 0) nals.push(raw.subarray(start));
  let sps: Buffer = Buffer.alloc(0);
  let pps: Buffer = Buffer.alloc(0);
  const frames: Buffer[][] = [];
  let pending: Buffer[] = [];
  for (const nal of nals) {
    const type = nal[0] & 0x1f;
    if (type === 7) sps = nal;
    if (type === 8) pps = nal;
    pending.push(nal);
    if (type === 1 || type === 5) {
      frames.push(pending);
      pending = [];
    }
  }
  return (clip = { sps, pps, frames });
}

interface Request {
  method: string;
  url: string;
  headers: Record<string, string>;
}

/** The range asked for, in ms; the device's local time with `localtime=true` (recorders), else UTC. */
function rangeOf(q: URLSearchParams, zone: string): { from: number; to: number } | string {
  const at = (name: string) => {
    const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/.exec(q.get(name) ?? '');
    if (!m) return undefined;
    const p = { year: +m[1], month: +m[2], day: +m[3], hour: +m[4], minute: +m[5], second: +m[6] };
    return q.get('localtime') === 'true' ? localToMs(p, zone) : Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  };
  const from = at('starttime');
  const to = at('endtime');
  if (from === undefined || to === undefined) return 'starttime and endtime must be YYYY-MM-DDTHH:MM:SSZ';
  return to <= from ? 'endtime before starttime' : { from, to };
}

export interface RtspOptions {
  device: Device;
  zone: string;
  username: string;
  password: string;
  /** Told of every playback started (tests count them). */
  onPlay?: (p: { channel: number; from: number; to: number }) => void;
  /** Playbacks running now; with `single`, a second is refused (503), as recorders that play back in one place only do. */
  running: Set<Socket>;
  single: boolean;
}

/** Serves one RTSP connection whose first bytes (`first`) the front already read. */
export function serveRtsp(socket: Socket, first: Buffer, o: RtspOptions): void {
  let buffer = first;
  let playing: NodeJS.Timeout | undefined;
  const session = Math.floor(Math.random() * 1e9).toString(16);
  const reply = (cseq: string, status: string, headers: Record<string, string> = {}, body = '') => {
    const lines = [`RTSP/1.0 ${status}`, `CSeq: ${cseq}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
    if (body) lines.push('Content-Type: application/sdp', `Content-Length: ${Buffer.byteLength(body)}`);
    socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`);
  };
  const stop = () => {
    if (playing) clearInterval(playing);
    playing = undefined;
    o.running.delete(socket);
  };
  socket.on('close', stop);
  socket.on('error', stop);

  const handle = (r: Request) => {
    const cseq = r.headers.cseq ?? '0';
    const expected = `Basic ${Buffer.from(`${o.username}:${o.password}`).toString('base64')}`;
    if (r.method !== 'OPTIONS' && r.headers.authorization !== expected)
      return reply(cseq, '401 Unauthorized', { 'WWW-Authenticate': 'Basic realm="RS realm"' });
    // A track's control URL is the base with `/trackID=0` after it, after the query too.
    const base = r.url.replace(/\/(trackID=\d+)?$/, '');
    const url = URL.canParse(base) ? new URL(base) : undefined;
    const path = url?.pathname;
    if (!url || (path !== '/rtsp/playback' && path !== '/cam/playback')) return reply(cseq, '404 Not Found');
    const channel = Number(url.searchParams.get('channel'));
    const slot = o.device.profile.channels[channel - 1];
    if (!slot?.configured) return reply(cseq, '404 Not Found');
    const range = rangeOf(url.searchParams, o.zone);
    if (typeof range === 'string') return reply(cseq, '400 Bad Request');
    const c = testClip();
    switch (r.method) {
      case 'OPTIONS':
        return reply(cseq, '200 OK', { Public: 'OPTIONS, DESCRIBE, SETUP, PLAY, TEARDOWN' });
      case 'DESCRIBE': {
        const sdp = [
          'v=0',
          'o=- 0 0 IN IP4 0.0.0.0',
          's=Playback',
          't=0 0',
          'm=video 0 RTP/AVP 96',
          'a=rtpmap:96 H264/90000',
          `a=fmtp:96 packetization-mode=1;sprop-parameter-sets=${c.sps.toString('base64')},${c.pps.toString('base64')}`,
          'a=control:trackID=0',
          '',
        ].join('\r\n');
        return reply(cseq, '200 OK', { 'Content-Base': `${base}/` }, sdp);
      }
      case 'SETUP':
        // Interleaved in this connection only (a device's playback works this way through NAT too).
        if (!/RTP\/AVP\/TCP/.test(r.headers.transport ?? '')) return reply(cseq, '461 Unsupported Transport');
        return reply(cseq, '200 OK', { Transport: 'RTP/AVP/TCP;unicast;interleaved=0-1', Session: `${session};timeout=60` });
      case 'PLAY': {
        if (o.single && o.running.size > 0 && !o.running.has(socket)) return reply(cseq, '503 Service Unavailable');
        o.running.add(socket);
        reply(cseq, '200 OK', { Session: session, Range: 'npt=0.000-' });
        o.onPlay?.({ channel, ...range });
        const total = Math.round(((range.to - range.from) / 1000) * FPS);
        let n = 0;
        let seq = 0;
        // Faster than real time (a download of a recording): four frames every 25 ms.
        playing = setInterval(() => {
          for (let k = 0; k < 4 && n < total; k++, n++) {
            const frame = c.frames[n % c.frames.length];
            const ts = (n * RTP_CLOCK) / FPS;
            const packets = frame.flatMap((nal) => packetize(nal));
            packets.forEach((payload, i) => {
              const rtp = Buffer.alloc(12);
              rtp[0] = 0x80;
              rtp[1] = 96 | (i === packets.length - 1 ? 0x80 : 0);
              rtp.writeUInt16BE(seq++ & 0xffff, 2);
              rtp.writeUInt32BE(ts >>> 0, 4);
              rtp.writeUInt32BE(0x5eed, 8);
              const head = Buffer.from([0x24, 0, 0, 0]);
              head.writeUInt16BE(12 + payload.length, 2);
              socket.write(Buffer.concat([head, rtp, payload]));
            });
          }
          if (n >= total) {
            stop();
            socket.end();
          }
        }, 25);
        return;
      }
      case 'TEARDOWN':
        stop();
        reply(cseq, '200 OK', { Session: session });
        return void socket.end();
      default:
        return reply(cseq, '405 Method Not Allowed');
    }
  };

  const drain = () => {
    for (;;) {
      // Interleaved data from the client (RTCP receiver reports): skipped.
      if (buffer[0] === 0x24) {
        if (buffer.length < 4) return;
        const len = 4 + buffer.readUInt16BE(2);
        if (buffer.length < len) return;
        buffer = buffer.subarray(len);
        continue;
      }
      const end = buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [line, ...rest] = buffer.subarray(0, end).toString('latin1').split('\r\n');
      buffer = buffer.subarray(end + 4);
      const [method, url] = line.split(' ');
      const headers = Object.fromEntries(
        rest.map((h) => [h.slice(0, h.indexOf(':')).trim().toLowerCase(), h.slice(h.indexOf(':') + 1).trim()]),
      );
      handle({ method, url, headers });
    }
  };
  socket.on('data', (d: Buffer) => {
    buffer = Buffer.concat([buffer, d]);
    drain();
  });
  drain();
}

/** Single NAL unit packets, or FU-A fragments of a large one (RFC 6184). */
function packetize(nal: Buffer): Buffer[] {
  if (nal.length <= MAX_PAYLOAD) return [nal];
  const out: Buffer[] = [];
  const indicator = (nal[0] & 0xe0) | 28;
  const type = nal[0] & 0x1f;
  for (let at = 1; at < nal.length; at += MAX_PAYLOAD) {
    const last = at + MAX_PAYLOAD >= nal.length;
    const header = (at === 1 ? 0x80 : 0) | (last ? 0x40 : 0) | type;
    out.push(Buffer.concat([Buffer.from([indicator, header]), nal.subarray(at, at + MAX_PAYLOAD)]));
  }
  return out;
}

/** Whether a connection's first bytes are an RTSP request (`OPTIONS rtsp://...`). */
export const isRtsp = (first: Buffer): boolean => /^[A-Z_]+ rtsp:\/\//.test(first.subarray(0, 64).toString('latin1'));
