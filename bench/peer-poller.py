"""The Python peer of the bench's floor (bench/floor.ts): the community integration's own client
(RaySharpNVRClient of github.com/11058/OEM-RaySharp-NVR-Ai, aiohttp) making the bare poller's job
(bench/bare-poller.ts): the same requests at the same pace, per device its own client as the integration
makes it. The integration's code is not ours to ship: the job names its folder (BENCH_PEER). Reads the job
as one JSON line on stdin, logs in to every device (not measured), runs `seconds` and prints one JSON line:
CPU in % of one core, peak RSS, requests sent."""
import asyncio
import json
import os
import resource
import sys
import time
import types
from urllib.parse import urlparse

EVENTS = '/API/Event/Check'
SUBSCRIPTION = {'plus_eventchk': 'eventAiPushPic', 'ext_data': {'subscribe_type': [{'event': ['all']}]}}


def rss():
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1]) * 1024
    return 0


async def every(period, fn, phase, stop, failed):
    """Calls `fn` every `period` s (counted from the start of the previous call) until `stop` is set."""
    await asyncio.sleep(phase)
    while not stop.is_set():
        start = time.monotonic()
        try:
            await fn()
        except Exception:
            failed[0] += 1
        await asyncio.sleep(max(0, start + period - time.monotonic()))


async def main():
    job = json.loads(sys.stdin.readline())
    # Its package's __init__ needs Home Assistant: load the client module alone.
    package = types.ModuleType('raysharp_nvr')
    package.__path__ = [job['peer']]
    sys.modules['raysharp_nvr'] = package
    from raysharp_nvr.api_client import RaySharpNVRClient

    peak = [rss()]

    async def sample():
        while True:
            peak[0] = max(peak[0], rss())
            await asyncio.sleep(0.25)

    sampler = asyncio.ensure_future(sample())
    clients = [RaySharpNVRClient(urlparse(u).hostname, urlparse(u).port, 'admin', job['password']) for u in job['urls']]
    for i in range(0, len(clients), 16):
        await asyncio.gather(*(c.async_login() for c in clients[i:i + 16]))
    sent, failed, stop = [0], [0], asyncio.Event()

    def loops(client, i):
        cursor = {}

        async def check():
            r = await client.async_api_call(EVENTS, {**SUBSCRIPTION, **cursor})
            sent[0] += 1
            d = (r or {}).get('data') or {}
            cursor.clear()
            if 'reader_id' in d:
                cursor.update(reader_id=d['reader_id'], sequence=d.get('sequence'), lap_number=d.get('lap_number'))

        async def poll():
            for r in job['poll']:
                await client.async_api_call(r['path'], r['data'])
                sent[0] += 1

        def extra(x):
            async def call():
                await client.async_api_call(x['path'], x['data'])
                sent[0] += 1
            return call

        phase = i * job['spreadMs'] / len(clients) / 1000 if len(clients) > 1 else 0
        periodic = [(job['eventIntervalMs'], check), (job['pollIntervalMs'], poll)]
        periodic += [(x['periodMs'], extra(x)) for x in job['extras']]
        return [every(ms / 1000, fn, phase, stop, failed) for ms, fn in periodic]

    tasks = [asyncio.ensure_future(t) for i, c in enumerate(clients) for t in loops(c, i)]
    await asyncio.sleep(max(3, job['spreadMs'] / 1000 + 1))  # every loop under way
    r0, w0, t0, s0 = resource.getrusage(resource.RUSAGE_SELF), time.monotonic(), time.time() * 1000, sent[0]
    await asyncio.sleep(job['seconds'])
    r1, wall, t1 = resource.getrusage(resource.RUSAGE_SELF), time.monotonic() - w0, time.time() * 1000
    cpu = 100 * (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) / wall
    sampler.cancel()
    stop.set()
    for t in tasks:
        t.cancel()
    figures = {'cpu_percent': cpu, 'peak_rss_mb': peak[0] / (1 << 20), 'requests': sent[0] - s0, 'failed': failed[0], 't0': t0, 't1': t1}
    print(json.dumps(figures), flush=True)
    os._exit(0)  # its sessions are the farm's to drop


asyncio.run(main())
