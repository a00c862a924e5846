/* nvr-device's dialog: checks of its fields, "Test connection" and "Diagnostics" through the admin routes. */
namespace NVR2MQTT.device {
  interface DeviceNode extends EditorConfigNode {
    tls_ca?: string;
    tls_fingerprint?: string;
  }

  export function validUrl(v: string): boolean {
    return /^https?:\/\/[^/\s]+/i.test(v || '');
  }
  /** SHA-256 of the device certificate in hex, colons and spaces allowed. */
  export function validFingerprint(v: string): boolean {
    return !v || /^([0-9a-f]{2}:?){32}$/i.test(v.replace(/\s/g, ''));
  }
  export function validHeartbeat(v: string | number): boolean {
    return v === '' || (!isNaN(Number(v)) && Number(v) >= 0);
  }
  export function label(this: DeviceNode): string {
    return this.name || this.url || 'nvr-device';
  }

  export function oneditprepare(this: DeviceNode): void {
    const node = this;
    const $result = $('#node-config-test-result');
    $('#node-config-input-tls-toggle').on('click', () => $('.nvr-tls-row').toggle());
    if (!node.tls_ca && !node.tls_fingerprint) $('.nvr-tls-row').hide();
    const dialogValues = () => ({
      id: node.id,
      url: $('#node-config-input-url').val(),
      username: $('#node-config-input-username').val(),
      password: $('#node-config-input-password').val(),
      tls_ca: $('#node-config-input-tls_ca').val(),
      tls_fingerprint: $('#node-config-input-tls_fingerprint').val(),
    });
    // Diagnostics: the device's capture (every page read, nothing written, no secret in it), saved as a file to attach to an issue.
    const $diag = $('#node-config-diagnostics-result');
    $('#node-config-diagnostics').on('click', () => {
      $diag.css('color', '').text('Reading every page…');
      NVR2MQTT.post<{ capture: { device?: { model?: string } }; answers: number; refused: number }>('diagnostics', dialogValues())
        .done((res) => {
          const blob = new Blob([JSON.stringify(res.capture, null, 1)], { type: 'application/json' });
          const a = document.createElement('a');
          a.href = URL.createObjectURL(blob);
          a.download = `nvr2mqtt-capture-${(res.capture.device?.model ?? 'device').replace(/[^A-Za-z0-9_-]/g, '_')}.json`;
          a.click();
          URL.revokeObjectURL(a.href);
          $diag.css('color', 'green').text(`Saved: ${res.answers} answers, ${res.refused} refused`);
        })
        .fail((xhr) => {
          $diag.css('color', 'red').text('Failed: ' + NVR2MQTT.errorText(xhr));
        });
    });
    $('#node-config-test').on('click', () => {
      const body = dialogValues();
      $result.css('color', '').text('Connecting…');
      NVR2MQTT.post<{ device_type?: string; software_version?: string }>('test', body)
        .done((res) => {
          const what = [res.device_type, res.software_version].filter(Boolean).join(', ');
          $result.css('color', 'green').text('Connected' + (what ? ': ' + what : ''));
        })
        .fail((xhr) => {
          $result.css('color', 'red').text('Failed: ' + NVR2MQTT.errorText(xhr));
        });
    });
  }

  /** The config node's type (nvr-device.html registers it): not in the palette, so none of flowNode's base. */
  export function definitions(): Record<string, Definition> {
    return {
      'nvr-device': {
        category: 'config',
        defaults: {
          name: { value: '' },
          url: { value: '', required: true, validate: validUrl },
          tls_ca: { value: '' },
          tls_fingerprint: { value: '', validate: validFingerprint },
          heartbeat: { value: 25, validate: validHeartbeat },
        },
        credentials: {
          username: { type: 'text' },
          password: { type: 'password' },
        },
        icon: 'nvr2mqtt-device.svg',
        label,
        oneditprepare,
      },
    };
  }
}
