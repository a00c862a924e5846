/**
 * HTTP push of alarms (vendor: Event > Http listening, `/API/AlarmConfig/EventPush/Range|Get|Set`; vendor facts
 * more §o.3). The page holds `{params: {name, table: {push_way, username, password, password_empty, addr, port,
 * url, enable, method, keep_alive_interval, udp_method, udp_addr, udp_port}}}`, Range and Get as in the vendor's
 * samples. While `enable` is on with `push_way` HTTP, every alarm start and stop of a pushed type is sent to
 * `http://<addr>:<port>/<url>`: GET with `EventType`, `EventTime`, `EventAction` (start|stop), `MACAddress`,
 * `ChannelName`, `DeviceName`, `IPAddress` in the query string; POST with the same members as a JSON body.
 * Alarm types the vendor's list has no EventType for (PIR, IO, video loss) are not pushed.
 */
import { request } from 'node:http';
import type { AlarmRequest, AlarmType } from './alarms';
import { checkSet } from './check';
import { bool, int, list, obj, text, type RangeMap } from './descriptors';
import { paramError, success } from './envelope';
import { eventTime } from './events';
import type { Route } from './route';

const EVENT_PUSH_PAGE = 'AlarmConfig/EventPush';

/** The vendor's EventType of each alarm type that is pushed (Get table 4). */
const EVENT_TYPES: Partial<Record<AlarmType, string>> = {
  motion: 'VideoMotion',
  tamper: 'VideoBlind',
  sound: 'SoundDetect',
  object: 'SOD',
  line_crossing: 'LCD',
  intrusion: 'PID',
  person: 'PD_VD',
  vehicle: 'PD_VD',
  face: 'FD',
};

/** The Range's `params.table` (vendor Range sample; `addr_demo` is read-only text). */
const TABLE_RANGE: RangeMap = {
  push_way: list(['HTTP', 'UDP']),
  username: text(0, 63),
  password: text(0, 63),
  password_empty: bool(),
  addr: text(0, 31),
  addr_demo: { type: 'string', mode: 'r', items: ['192.168.1.168 or example.com'] },
  port: int(1, 65535),
  url: text(0, 63),
  enable: bool(),
  method: list(['GET', 'POST']),
  keep_alive_interval: list(['0', '1', '5', '10']),
  udp_method: list(['Unicast', 'Multicast', 'Broadcast']),
  udp_addr: text(0, 32),
  udp_port: int(1, 65535),
};

const RANGE: RangeMap = {
  method: { type: 'string', mode: 'r', items: ['GET', 'POST'] },
  params: obj({ name: text(0, 127), table: obj(TABLE_RANGE) }),
};

type Table = Record<string, unknown>;

export interface PushSent {
  time: number;
  url: string;
  method: string;
  status?: number;
  error?: string;
}

export class EventPush {
  /** Vendor Get sample: push off, no server. */
  private readonly table: Table = {
    username: '',
    password: '',
    password_empty: true,
    addr: '',
    port: 123,
    url: 'API/AlarmEvent/EventPush',
    enable: false,
    method: 'POST',
    keep_alive_interval: '0',
    push_way: 'HTTP',
    udp_method: 'Broadcast',
    udp_addr: '',
    udp_port: 5000,
  };
  /** Pushes sent (tests read them). */
  readonly sent: PushSent[] = [];

  constructor(
    private readonly who: { mac: string; deviceName: string; ip: string; legacyTime: boolean },
    /** The device's own outgoing address (its pushes come from here). */
    private readonly localAddress: string,
  ) {}

  /** The page's `params.table` as the device holds it (tests may preset a user's own settings). */
  get settings(): Table {
    return this.table;
  }

  routes(): Array<[string, Route]> {
    return [
      [`/API/${EVENT_PUSH_PAGE}/Range`, { auth: 'session', handler: () => success(RANGE) }],
      [
        `/API/${EVENT_PUSH_PAGE}/Get`,
        { auth: 'session', handler: () => success({ params: { name: '', table: { ...this.table, password: '' } } }) },
      ],
      [
        `/API/${EVENT_PUSH_PAGE}/Set`,
        {
          auth: 'session',
          handler: ({ data }) => {
            const problems = checkSet(data, RANGE);
            if (problems.length) return paramError(problems.join('; '));
            const table = (data.params as { table?: Table } | undefined)?.table ?? {};
            for (const [k, v] of Object.entries(table)) if (k !== 'addr_demo') this.table[k] = v;
            return success({});
          },
        },
      ],
    ];
  }

  /** An alarm edge: pushed when push is on and the vendor's list has its type. */
  alarm(a: AlarmRequest): void {
    const type = EVENT_TYPES[a.type];
    const t = this.table;
    if (!type || t.enable !== true || t.push_way !== 'HTTP' || !t.addr) return;
    const members: Record<string, string> = {
      EventType: type,
      EventTime: eventTime(this.who.legacyTime)(new Date()),
      EventAction: a.active ? 'start' : 'stop',
      ChannelName: a.channel,
      DeviceName: this.who.deviceName,
      IPAddress: this.who.ip,
      MACAddress: this.who.mac,
    };
    const method = t.method === 'GET' ? 'GET' : 'POST';
    const path = `/${String(t.url ?? '').replace(/^\/+/, '')}`;
    const query = method === 'GET' ? `?${new URLSearchParams(members).toString()}` : '';
    const body = method === 'POST' ? JSON.stringify(members) : undefined;
    const record: PushSent = { time: Date.now(), url: `http://${String(t.addr)}:${Number(t.port)}${path}${query}`, method };
    this.sent.push(record);
    const req = request(
      {
        host: String(t.addr),
        port: Number(t.port),
        path: path + query,
        method,
        localAddress: this.localAddress,
        headers: body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {},
        timeout: 5_000,
      },
      (res) => {
        record.status = res.statusCode;
        res.resume();
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err) => (record.error = err.message));
    req.end(body);
  }
}
