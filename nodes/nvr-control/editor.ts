/* nvr-control's dialog: the modes as the runtime lists them, and the channels or outputs that have the mode's hardware. */
namespace NVR2MQTT.control {
  interface ControlNode extends EditorNode {
    mode?: string;
    channel?: string;
    output?: string;
    ptz?: string;
  }
  interface PtzOffer {
    presets: Array<{ no: number; name: string }>;
    moves: string[];
  }
  interface Hardware {
    channels: Array<{ id: string; name?: string; online?: boolean; state?: string }>;
    outputs: string[];
  }

  /** The modes (nodes/shared/control-modes.ts CONTROL_MODES, from core's live controls), null until the rules arrived. */
  function modes(): Record<string, ControlModeRule> | null {
    return NVR2MQTT.loadedRules()?.modes ?? null;
  }
  function modeOf(mode: string | undefined): ControlModeRule {
    return (mode && modes()?.[mode]) || { target: 'channel', settings: [] };
  }

  export function validMode(v: string): boolean {
    const all = modes();
    return !all || Object.prototype.hasOwnProperty.call(all, v);
  }
  export function validWholeOrEmpty(v: unknown): boolean {
    return v === '' || v === undefined || /^\d+$/.test(String(v).trim());
  }
  export function label(this: ControlNode): string {
    if (this.name) return this.name;
    const m = modeOf(this.mode);
    const target = m.target === 'channel' ? this.channel : m.target === 'output' ? this.output : '';
    const command = this.mode === 'ptz' && this.ptz ? ' ' + this.ptz : '';
    return (this.mode || 'nvr control') + (target ? ' ' + target : '') + command;
  }

  export function oneditprepare(this: ControlNode): void {
    const node = this;
    const $mode = $('#node-input-mode');
    const ready = NVR2MQTT.loadRules().done(({ modes: list }) => {
      for (const m of Object.keys(list)) {
        // A mode without a translation (a live control new to core's table) shows the table's label.
        $('<option>')
          .val(m)
          .text(NVR2MQTT.translated(node, 'nvr-control.mode.' + m, list[m].label ?? ''))
          .appendTo($mode);
      }
      $mode.val(node.mode || 'floodlight');
    });
    const refresh = hardwareRefresher(node);
    const refreshPtz = ptzRefresher(node);
    $mode.on('change', refresh);
    $('#node-input-device').on('change', refresh);
    $('#node-input-channel').on('change', refreshPtz);
    ready.always(refresh);
  }

  /**
   * PTZ mode: the chosen channel's offer (its stored presets, its moves, stop) as the node's command, asked of the
   * camera through the admin route; empty = msg.payload decides. A saved command the camera no longer offers stays.
   */
  function ptzRefresher(node: ControlNode): () => void {
    const $ptz = $('#node-input-ptz');
    const $note = $('#nvr-control-note');
    let asked = 0;
    const fill = (offer: PtzOffer | null, current: string) => {
      $ptz.empty().append($('<option>').val('').text(node._('nvr-control.note.ptzFromMsg')));
      const listed: string[] = [];
      const group = (label: string, entries: Array<{ value: string; text: string }>) => {
        if (!entries.length) return;
        const $g = $('<optgroup>').attr('label', label);
        for (const e of entries) {
          $('<option>').val(e.value).text(e.text).appendTo($g);
          listed.push(e.value);
        }
        $ptz.append($g);
      };
      if (offer) {
        group(
          node._('nvr-control.note.ptzPresets'),
          offer.presets.map((p) => ({ value: String(p.no), text: `${p.no} ${p.name}` })),
        );
        group(node._('nvr-control.note.ptzMoves'), [
          ...offer.moves.map((m) => ({ value: m, text: m.replace('_', ' ') })),
          { value: 'stop', text: node._('nvr-control.note.ptzStop') },
        ]);
      }
      if (current && !listed.includes(current))
        $('<option>')
          .val(current)
          .text(`${current} (${node._('nvr-control.note.notListed')})`)
          .appendTo($ptz);
      $ptz.val(current);
    };
    return () => {
      const seq = ++asked;
      const current = $ptz.val() || node.ptz || '';
      if ($('#node-input-mode').val() !== 'ptz') return;
      const channel = $('#node-input-channel').val();
      const values = NVR2MQTT.deviceValues($('#node-input-device').val());
      fill(null, current);
      if (!values?.url || !channel) return void $note.text(node._('nvr-control.note.ptzChooseChannel'));
      $note.text(node._('nvr-control.note.ptzAsking'));
      NVR2MQTT.post<PtzOffer>('ptz', { ...values, channel })
        .done((offer) => {
          if (seq !== asked) return;
          fill(offer, current);
          $note.text(offer.presets.length ? node._('nvr-control.note.ptzHint') : node._('nvr-control.note.ptzNone'));
        })
        .fail((xhr) => {
          if (seq === asked) $note.text(node._('nvr-control.note.failed') + ' ' + NVR2MQTT.errorText(xhr));
        });
    };
  }

  /**
   * What refreshes the dialog for the chosen mode: shows its rows, and asks the device (through the admin route)
   * which channels have the mode's hardware, or its outputs. Only the latest question's answer fills the lists
   * (switching modes quickly answers out of order).
   */
  function hardwareRefresher(node: ControlNode): () => void {
    const $mode = $('#node-input-mode');
    const $channel = $('#node-input-channel');
    const $output = $('#node-input-output');
    const $note = $('#nvr-control-note');
    const notListed = () => node._('nvr-control.note.notListed');
    let asked = 0;
    return () => {
      const seq = ++asked;
      const mode = $mode.val();
      const m = modeOf(mode);
      // Restart mode: the recorder, or a camera behind it (channel optional).
      const channelled = m.target === 'channel' || m.channel === 'optional';
      $('.nvr-control-channel').toggle(channelled);
      $('.nvr-control-output').toggle(m.target === 'output');
      $('.nvr-control-ptz').toggle(mode === 'ptz');
      for (const s of ['brightness', 'volume', 'duration']) $('.nvr-control-' + s).toggle(m.settings.includes(s));
      const current = channelled ? $channel.val() || node.channel || '' : $output.val() || node.output || '';
      // What the mode's messages must carry, where the runtime says (restart).
      const payloadNote = m.payload ? node._('nvr-control.note.restartPayload').replace('__words__', m.payload) : '';
      if (!channelled && m.target === 'device') return void $note.text(payloadNote);
      const values = NVR2MQTT.deviceValues($('#node-input-device').val());
      if (!values?.url) return void $note.text(node._('nvr-control.note.chooseDevice'));
      $note.text(node._('nvr-control.note.asking'));
      NVR2MQTT.post<Hardware>('hardware', { mode, ...values })
        .done((res) => {
          if (seq !== asked) return;
          if (channelled) {
            const listed = res.channels.map((c) => ({ value: c.id, text: NVR2MQTT.channelText(c.id, c) }));
            // Restart mode: the empty choice is the recorder itself.
            const none = m.channel === 'optional' ? node._('nvr-control.note.recorder') : undefined;
            NVR2MQTT.fillSelect($channel, listed, current, notListed(), none);
            $note.text(res.channels.length || m.channel === 'optional' ? payloadNote : node._('nvr-control.note.noHardware'));
            if (mode === 'ptz') $channel.trigger('change'); // its presets and moves
          } else {
            NVR2MQTT.fillSelect(
              $output,
              res.outputs.map((o) => ({ value: o, text: o })),
              current,
              notListed(),
            );
            $note.text(res.outputs.length ? '' : node._('nvr-control.note.noOutputs'));
          }
        })
        .fail((xhr) => {
          if (seq !== asked) return;
          NVR2MQTT.fillSelect(channelled ? $channel : $output, [], current, notListed());
          $note.text(node._('nvr-control.note.failed') + ' ' + NVR2MQTT.errorText(xhr));
        });
    };
  }

  /** nvr-control's node type (nvr-control.html registers it). */
  export function definitions(): Record<string, Definition> {
    return {
      'nvr-control': NVR2MQTT.flowNode({
        defaults: {
          mode: { value: 'floodlight', required: true, validate: validMode },
          channel: { value: '', validate: NVR2MQTT.validChannel },
          output: { value: '' },
          brightness: { value: '', validate: validWholeOrEmpty },
          volume: { value: '', validate: validWholeOrEmpty },
          duration: { value: '', validate: validWholeOrEmpty },
          ptz: { value: '' },
        },
        icon: 'nvr2mqtt-camera.svg',
        paletteLabel: 'nvr control',
        label,
        oneditprepare,
      }),
    };
  }
}
