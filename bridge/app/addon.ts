/**
 * Home Assistant add-on: the add-on's options (/data/options.json, laid out like config.yaml with flat
 * device fields the add-on UI can show) become the bridge's settings. With no broker URL in the
 * options, the broker comes from Home Assistant's MQTT service (`services: mqtt:need`), asked of the
 * Supervisor API with the add-on's SUPERVISOR_TOKEN.
 *
 * Passwords and panel codes never go into the settings written for the bridge: they are returned as environment
 * overrides (NVR2MQTT_MQTT_PASSWORD, NVR2MQTT_DEVICES_<i>_PASSWORD, NVR2MQTT_DEVICES_<i>_ALARM_CODE) that the
 * config loader applies.
 */
import * as v from 'valibot';
import { isPlainObject } from '../../core/json';

/** The answer of GET http://supervisor/services/mqtt (the Supervisor's SCHEMA_SERVICE_MQTT). */
const MqttServiceSchema = v.object({
  host: v.string(),
  port: v.number(),
  ssl: v.optional(v.boolean()),
  username: v.optional(v.string()),
  password: v.optional(v.string()),
});
export type MqttService = v.InferOutput<typeof MqttServiceSchema>;

export interface AddonSettings {
  /** Settings for parseConfig / a config file: no password in it. */
  settings: Record<string, unknown>;
  /** Environment overrides carrying the passwords. */
  env: Record<string, string>;
}

/** Device option -> config path: flat in the add-on UI, nested in config.yaml. */
const DEVICE_FIELDS: Readonly<Record<string, (value: string, device: Record<string, unknown>) => void>> = {
  channels: (x, d) =>
    (d.channels = x
      .split(',')
      .map((c) => c.trim())
      .filter(Boolean)),
  tls_fingerprint: (x, d) => (d.tls = { ...(d.tls as object), fingerprint: x }),
  tls_ca_file: (x, d) => (d.tls = { ...(d.tls as object), ca_file: x }),
};

/** The add-on UI stores a cleared optional field as "" or null: such a field is not set. */
function given(obj: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(obj).filter(([, x]) => x !== '' && x !== null && x !== undefined));
}

/** Maps add-on options (and the MQTT service when the options name no broker) to bridge settings. */
export function settingsFromAddonOptions(options: unknown, service: MqttService | undefined): AddonSettings {
  if (!isPlainObject(options)) throw new Error('add-on options: expected a mapping');
  const env: Record<string, string> = {};
  const settings = given(options);

  const mqtt = given(isPlainObject(options.mqtt) ? options.mqtt : {});
  if (mqtt.url === undefined) {
    if (!service)
      throw new Error('no MQTT broker: set mqtt.url in the add-on options, or set up the MQTT integration (Mosquitto broker add-on)');
    mqtt.url = `${service.ssl ? 'mqtts' : 'mqtt'}://${service.host}:${service.port}`;
    if (mqtt.username === undefined && service.username) mqtt.username = service.username;
    if (mqtt.password === undefined && service.password) mqtt.password = service.password;
  }
  if (typeof mqtt.password === 'string') env.NVR2MQTT_MQTT_PASSWORD = mqtt.password;
  delete mqtt.password;
  settings.mqtt = mqtt;

  if (isPlainObject(options.homeassistant)) settings.homeassistant = given(options.homeassistant);
  if (isPlainObject(options.request_api)) settings.request_api = given(options.request_api);
  const devices = Array.isArray(options.devices) ? options.devices : [];
  settings.devices = devices.map((entry, i) => {
    const device = given(isPlainObject(entry) ? entry : {});
    for (const [field, apply] of Object.entries(DEVICE_FIELDS)) {
      const value = device[field];
      if (typeof value !== 'string') continue;
      delete device[field];
      apply(value, device);
    }
    if (typeof device.password === 'string') env[`NVR2MQTT_DEVICES_${i}_PASSWORD`] = device.password;
    delete device.password;
    if (typeof device.alarm_code === 'string') env[`NVR2MQTT_DEVICES_${i}_ALARM_CODE`] = device.alarm_code;
    delete device.alarm_code;
    return device;
  });
  return { settings, env };
}

/**
 * Home Assistant's MQTT service, or undefined when there is none (no token: not an add-on; 400: no
 * broker set up). Other failures are thrown: the add-on must not start against a guessed broker.
 */
export async function fetchMqttService(
  env: NodeJS.ProcessEnv = process.env,
  baseUrl = env.SUPERVISOR_URL ?? 'http://supervisor', // SUPERVISOR_URL: a stand-in, for tests
): Promise<MqttService | undefined> {
  const token = env.SUPERVISOR_TOKEN;
  if (!token) return undefined;
  const res = await fetch(`${baseUrl}/services/mqtt`, {
    headers: { Authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(10_000),
  });
  if (res.status === 400 || res.status === 404) return undefined;
  if (!res.ok) throw new Error(`Supervisor API: HTTP ${res.status} for /services/mqtt`);
  const body = await res.json();
  const data = isPlainObject(body) ? body.data : undefined;
  const parsed = v.safeParse(MqttServiceSchema, data);
  if (!parsed.success) throw new Error('Supervisor API: /services/mqtt answered without host and port');
  return parsed.output;
}
