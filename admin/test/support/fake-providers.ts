import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

export interface FakeServer {
  url: string;
  requests: Recorded[];
  close(): Promise<void>;
}

type Handler = (req: Recorded, res: ServerResponse) => void;

async function serve(handler: Handler): Promise<FakeServer> {
  const requests: Recorded[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString();
      const rec: Recorded = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: text ? (JSON.parse(text) as unknown) : undefined,
      };
      requests.push(rec);
      handler(rec, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const json = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

/** What the fake chat service does with its next request. */
export type ChatReply =
  | { kind: 'content'; content: string; usage?: { prompt_tokens: number; completion_tokens: number } }
  | { kind: 'status'; status: number }
  | { kind: 'hang' };

/** Speaks the OpenAI chat-completions protocol; answers from a queue the test fills. */
export async function fakeChatServer(): Promise<FakeServer & { queue: ChatReply[] }> {
  const queue: ChatReply[] = [];
  const srv = await serve((req, res) => {
    const reply = queue.shift() ?? { kind: 'status', status: 500 };
    if (req.path !== '/chat/completions' || req.method !== 'POST')
      return json(res, 404, { error: { message: 'no such path' } });
    if (reply.kind === 'hang') return; // never answers; the client's timeout must fire
    if (reply.kind === 'status') return json(res, reply.status, { error: { message: 'upstream exploded' } });
    json(res, 200, {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      model: 'fake',
      choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: reply.content } }],
      ...(reply.usage
        ? { usage: { ...reply.usage, total_tokens: reply.usage.prompt_tokens + reply.usage.completion_tokens } }
        : {}),
    });
  });
  return Object.assign(srv, { queue });
}

/**
 * Speaks the avatar-video protocol in admin/docs/api.md. The avatar id picks the behaviour:
 * `slow-<n>` completes on poll n, `fails` fails on the first poll, `refuse` is refused at
 * creation, `down` cannot be polled (503).
 */
export async function fakeVideoServer(): Promise<FakeServer> {
  const jobs = new Map<string, { avatar: string; polls: number }>();
  return serve((req, res) => {
    if (req.method === 'POST' && req.path === '/v1/videos') {
      const avatar = (req.body as { avatar_id: string }).avatar_id;
      if (avatar === 'refuse') return json(res, 500, { error: 'no capacity' });
      const id = `vid_${jobs.size + 1}`;
      jobs.set(id, { avatar, polls: 0 });
      return json(res, 201, { id, status: 'queued' });
    }
    const m = /^\/v1\/videos\/([^/]+)$/.exec(req.path);
    const job = m ? jobs.get(decodeURIComponent(m[1] ?? '')) : undefined;
    if (req.method !== 'GET' || !job) return json(res, 404, { error: 'no such job' });
    job.polls++;
    if (job.avatar === 'down') return json(res, 503, { error: 'maintenance' });
    if (job.avatar === 'fails') return json(res, 200, { status: 'failed', error: 'avatar not found' });
    const needed = Number(/^slow-(\d+)$/.exec(job.avatar)?.[1] ?? 1);
    if (job.polls < needed) return json(res, 200, { status: 'processing' });
    return json(res, 200, {
      status: 'completed',
      video_url: `https://cdn.example.com/${m?.[1] ?? ''}.mp4`,
      duration_sec: 14.6,
    });
  });
}
