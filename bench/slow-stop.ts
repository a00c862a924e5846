/**
 * Issue 38 (printed by bench/run.ts, never asserted): the time from SIGTERM to the process's exit with a device that
 * takes BENCH_SLOW_ANSWER_MS per answer (default 8000) and a command on the wire. The goal is the 8 s bound that
 * Docker's and the Supervisor's 10 s kill leave (test/bridge/slow-stop.test.ts holds it); the figure says how much room
 * is left. The real command in a child process, an embedded aedes (or MQTT_TEST_URL), the simulator as the device.
 */
import { stopWithSlowDevice } from '../test/helpers/slow-stop';

export async function benchSlowStop(): Promise<Record<string, number>> {
  const answerMs = Number(process.env.BENCH_SLOW_ANSWER_MS || 8000);
  const s = await stopWithSlowDevice(answerMs);
  const failed = s.after.filter((m) => m.topic === `${s.base}/bridge/event` && m.payload.includes('"command_failed"')).length;
  const figures = {
    slow_stop_device_answer_ms: answerMs,
    slow_stop_sigterm_to_exit_ms: s.exitMs === undefined ? -1 : Math.round(s.exitMs),
    slow_stop_exit_code: s.code ?? -1,
    slow_stop_commands_reported_failed: failed,
    slow_stop_state_offline: s.state === 'offline' ? 1 : 0,
  };
  console.log(
    `slow stop: device answering in ${answerMs} ms, a command on the wire: SIGTERM to exit ${figures.slow_stop_sigterm_to_exit_ms} ms ` +
      `(exit code ${figures.slow_stop_exit_code}), ${failed} command(s) reported failed, bridge/state ${s.state ?? 'unknown'}`,
  );
  return figures;
}
