import { connect } from 'node:net';
import type { Socket } from 'node:net';

export interface StepResult {
  targetRate: number;
  achievedRate: number;
  sent: number;
  completed: number;
  errors: number;
  /** Status code counts. */
  statuses: Record<string, number>;
  /** Latency percentiles in ms; a request that waited for a free connection counts from its scheduled time (coordinated omission corrected). */
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
}

interface Conn {
  socket: Socket;
  busy: boolean;
  /** Scheduled send time of the request in flight. */
  scheduledAt: number;
  buf: Buffer;
}

function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

/**
 * Open-model load: requests are scheduled at a fixed rate whatever the server
 * does; a request that has to wait for a free connection still counts its
 * latency from its scheduled time, so a stalled server cannot hide its queue
 * (coordinated omission). Requests are pre-built HTTP/1.1 buffers written on
 * keep-alive sockets; responses are parsed just enough to find their end.
 */
export async function runStep(opts: {
  port: number;
  requests: Buffer[];
  rate: number;
  durationMs: number;
  connections: number;
}): Promise<StepResult> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  let sent = 0;
  const queue: number[] = [];
  const conns: Conn[] = [];
  let reqIndex = 0;

  const send = (c: Conn, scheduledAt: number) => {
    c.busy = true;
    c.scheduledAt = scheduledAt;
    c.socket.write(opts.requests[reqIndex++ % opts.requests.length] as Buffer);
    sent++;
  };
  const onResponse = (c: Conn, status: string) => {
    latencies.push(performance.now() - c.scheduledAt);
    statuses[status] = (statuses[status] ?? 0) + 1;
    // 2xx and 3xx are answers (a click is a 302 to the landing page); 4xx and 5xx are errors.
    if (status[0] !== '2' && status[0] !== '3') errors++;
    c.busy = false;
    const next = queue.shift();
    if (next !== undefined) send(c, next);
  };

  await Promise.all(
    Array.from(
      { length: opts.connections },
      () =>
        new Promise<void>((resolve, reject) => {
          const c: Conn = {
            socket: connect(opts.port, '127.0.0.1', resolve),
            busy: false,
            scheduledAt: 0,
            buf: Buffer.alloc(0),
          };
          c.socket.setNoDelay(true);
          c.socket.once('error', reject);
          c.socket.on('data', (chunk: Buffer) => {
            c.buf = c.buf.length ? Buffer.concat([c.buf, chunk]) : chunk;
            for (;;) {
              const end = c.buf.indexOf('\r\n\r\n');
              if (end === -1) return;
              const head = c.buf.subarray(0, end).toString('latin1');
              const m = /content-length: *(\d+)/i.exec(head);
              const total = end + 4 + (m ? Number(m[1]) : 0);
              if (c.buf.length < total) return;
              c.buf = c.buf.subarray(total);
              onResponse(c, head.slice(9, 12));
            }
          });
          conns.push(c);
        }),
    ),
  );
  for (const c of conns) c.socket.on('error', () => errors++);

  const started = performance.now();
  const interval = 1000 / opts.rate;
  let scheduled = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      const due = Math.min(Math.floor((now - started) / interval), Math.floor(opts.durationMs / interval));
      for (; scheduled < due; scheduled++) {
        const at = started + scheduled * interval;
        const free = conns.find((c) => !c.busy);
        // With a free connection the request leaves now, and its clock starts now: our own timer's
        // lateness is not the server's. Without one, the server is behind, and the clock started
        // at the scheduled time (coordinated omission correction).
        if (free) send(free, now);
        else queue.push(at);
      }
      if (now - started >= opts.durationMs) return resolve();
      // Sleep until the next request is due rather than spin: a spinning generator would take
      // a core from the server on a small machine. Latency still counts from the due time.
      setTimeout(tick, Math.max(0, started + scheduled * interval - performance.now() - 0.2));
    };
    tick();
  });
  // Let the tail finish (bounded).
  const drainUntil = performance.now() + 2_000;
  while ((queue.length > 0 || conns.some((c) => c.busy)) && performance.now() < drainUntil)
    await new Promise((r) => setTimeout(r, 5));
  errors += queue.length + conns.filter((c) => c.busy).length;
  for (const c of conns) c.socket.destroy();

  const sorted = Float64Array.from(latencies).sort();
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    targetRate: opts.rate,
    achievedRate: Math.round(latencies.length / (opts.durationMs / 1000)),
    sent,
    completed: latencies.length,
    errors,
    statuses,
    p50: round(percentile(sorted, 0.5)),
    p90: round(percentile(sorted, 0.9)),
    p99: round(percentile(sorted, 0.99)),
    p999: round(percentile(sorted, 0.999)),
    max: round(sorted[sorted.length - 1] ?? 0),
  };
}

/** A GET as a browser's widget sends it, raw bytes ready to write. */
export function httpGet(path: string, headers: Readonly<Record<string, string>>): Buffer {
  return Buffer.from(
    [`GET ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', ''].join(
      '\r\n',
    ),
  );
}

export function httpRequest(path: string, body: Buffer, headers: Record<string, string>): Buffer {
  const head = [
    `POST ${path} HTTP/1.1`,
    'Host: 127.0.0.1',
    'Content-Type: application/json',
    `Content-Length: ${body.length}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    '',
    '',
  ].join('\r\n');
  return Buffer.concat([Buffer.from(head), body]);
}
