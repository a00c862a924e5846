/** startBridge's options: test and tuning knobs, none of them in the config file. */
import type { Logger, LogSink } from './base/log';
import type { DeviceOptions } from './device/device';
import type { FeatureOptions } from './features/feature';
import type { EmbeddedBroker } from './mqtt/broker';

/** The features' own knobs (firmware check gap and progress reads, `onPicture`) are documented in FeatureOptions. */
export interface BridgeOptions extends Pick<FeatureOptions, 'firmwareCheckGapMs' | 'firmwareProgressMs' | 'onPicture' | 'onRecognition'> {
  /** A logger, or a sink receiving every line; default: stdout/stderr at config.log_level. */
  log?: Logger | LogSink;
  /** Called for every message the bridge publishes (demo output, tests). */
  onPublish?: (topic: string, payload: string, retain: boolean) => void;
  /** Retry delays after failed polls. Default 2 s .. 5 min. */
  backoff?: { minMs?: number; maxMs?: number };
  /** Consecutive failed polls before a device is offline. Default 3. */
  offlineAfter?: number;
  /** Delay between republished discovery and state after Home Assistant's birth message. Default 2000 ms. */
  haStateDelayMs?: number;
  /**
   * How long Home Assistant is given to set up the entities of a discovery message before what fills them follows (an
   * alarm of a new type; the retained state of removed devices, cleared after their discovery). Default 1000 ms.
   */
  entitySetupMs?: number;
  /** How long the instance probe listens for retained topics under the base topic. Default 1000 ms. */
  instanceProbeWindowMs?: number;
  /** Least time between two reads of a device asked for over MQTT (`get`, `refresh`). Default 1000 ms. */
  readGapMs?: number;
  /** Device request deadline. Default 10000 ms. */
  deviceTimeoutMs?: number;
  /**
   * How long stop() waits for commands and requests in flight before logging out (what is still unfinished then is
   * reported failed on MQTT). Default: the device request deadline + 2 s (12 s), so a slow Set is applied and confirmed.
   */
  stopTimeoutMs?: number;
  /** MQTT reconnect period. Default 2000 ms. */
  reconnectPeriodMs?: number;
  /** Wait at most this long for the first MQTT connection before startBridge rejects. Default 30000 ms. */
  connectTimeoutMs?: number;
  clientFactory?: DeviceOptions['clientFactory'];
  /**
   * The embedded broker of a config without `mqtt.url`: address and port (CLI `--host`, `--port`), or one already
   * started (`started`, the demo's: it holds nothing, so there is no other instance to probe for; its owner stops it).
   */
  broker?: { host?: string; port?: number; started?: EmbeddedBroker };
  /** Devices in their first poll (login, Ranges, first reads) at once at most. Default START_CONCURRENCY (128). */
  startConcurrency?: number;
}
