/**
 * A clip: the RTSP playback stream of a time range recorded to an MP4 without re-encoding, by ffmpeg (the tool go2rtc
 * and Frigate rely on) as a child process with a time limit. Written to `<path>.part` and renamed when ffmpeg ends
 * well, so a clip that fails leaves no file. The playback URL carries the login here only (given to ffmpeg, never
 * returned or logged: errors are said without ffmpeg's own text, which quotes the URL).
 */
import { execFile } from 'node:child_process';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { DeviceError } from './errors';

const run = promisify(execFile);

export interface ClipJob {
  /** The playback URL without credentials (core/recordings.ts playbackUrl). */
  url: string;
  username: string;
  password: string;
  /** Seconds of video asked for. */
  seconds: number;
  out: string;
  /** The ffmpeg program (default `ffmpeg` on PATH); ffprobe is looked for beside it. */
  ffmpeg?: string;
  /** Beyond the clip's own length (default 30 s). */
  graceMs?: number;
}

export interface Clip {
  path: string;
  size: number;
  /** Seconds, as ffprobe reads the file. */
  duration?: number;
}

/** What ffmpeg's failure says, in words without the URL; the device's refusal (RTSP status) when it gave one. */
function failureOf(err: unknown, timedOut: boolean): DeviceError {
  const text = String((err as { stderr?: string }).stderr ?? '');
  const status = /Server returned (\d{3}) ([^\r\n]*)/.exec(text) ?? /(\d{3}) (Service Unavailable|Unauthorized|Not Found)/.exec(text);
  const missing = (err as { code?: string }).code === 'ENOENT';
  const reason = missing
    ? 'ffmpeg was not found (install it, or give its path)'
    : timedOut
      ? 'ffmpeg did not finish in time'
      : status
        ? `the device refused the playback (RTSP ${status[1]} ${status[2].trim()})`
        : 'ffmpeg could not record the playback';
  const error_code = status?.[1] === '503' ? 'device_play_locked' : missing ? 'no_ffmpeg' : 'clip_failed';
  return new DeviceError({ kind: status?.[1] === '503' ? 'busy' : 'rejected', error_code, reason, page: 'Playback', operation: 'Clip' });
}

export async function exportClip(job: ClipJob): Promise<Clip> {
  const ffmpeg = job.ffmpeg ?? 'ffmpeg';
  const url = new URL(job.url);
  url.username = encodeURIComponent(job.username);
  url.password = encodeURIComponent(job.password);
  const part = `${job.out}.part`;
  await mkdir(dirname(job.out), { recursive: true });
  const timeout = job.seconds * 1000 + (job.graceMs ?? 30_000);
  const started = Date.now();
  try {
    await run(
      ffmpeg,
      ['-hide_banner', '-loglevel', 'error', '-rtsp_transport', 'tcp', '-i', url.href, '-t', String(job.seconds), '-c', 'copy'].concat([
        '-movflags',
        '+faststart',
        '-f',
        'mp4',
        '-y',
        part,
      ]),
      { timeout, killSignal: 'SIGKILL', maxBuffer: 1 << 20 },
    );
    await rename(part, job.out);
  } catch (err) {
    await rm(part, { force: true });
    throw failureOf(err, Date.now() - started >= timeout);
  }
  const { size } = await stat(job.out);
  const probe = ffmpeg.includes('/') ? join(dirname(ffmpeg), 'ffprobe') : 'ffprobe';
  let duration: number | undefined;
  try {
    const r = await run(probe, ['-v', 'error', '-show_entries', 'format=duration', '-of', 'default=nw=1:nk=1', job.out], {
      timeout: 10_000,
    });
    const d = Number(r.stdout.trim());
    if (Number.isFinite(d)) duration = Math.round(d * 10) / 10;
  } catch {
    // No ffprobe: the clip is there, its length unknown.
  }
  return { path: job.out, size, ...(duration !== undefined ? { duration } : {}) };
}
