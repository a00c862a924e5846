/**
 * The features, one folder each (feature.ts: their shape), in the one list startBridge takes: the order their
 * discovery components, structure changes and stops (reversed) go.
 */
import { alarmOutputFeature } from './alarm-outputs';
import { cameraFeature, deviceCameras } from './cameras';
import type { DeviceCameras } from './cameras/cameras';
import type { DeviceFeature, FeatureOptions } from './feature';
import { firmwareFeature } from './firmware';
import { ptzFeature } from './ptz';
import { recognitionFeature } from './recognition';
import { restartFeature } from './restarts';
import { storageFeature } from './storage';
import { speakerFeature, type PromptUploads } from './speaker';
import { recordingFeature } from './recordings';

export function deviceFeatures(o: FeatureOptions): {
  features: DeviceFeature[];
  cameras: ReadonlyMap<string, DeviceCameras>;
  promptUploads: PromptUploads;
} {
  // The device events hand the cameras their alarm pictures (bridge/devices.ts).
  const cameras = deviceCameras(o);
  const speaker = speakerFeature(o);
  // Storage before firmware: the recorder's disk entities come before its update entity in its discovery config.
  const features = [
    cameraFeature(cameras, o),
    ptzFeature(o),
    storageFeature(o),
    firmwareFeature(o),
    restartFeature(o),
    alarmOutputFeature(o),
    speaker.feature,
    recordingFeature(o),
    recognitionFeature(o).feature,
  ];
  return { features, cameras, promptUploads: speaker.uploads };
}
