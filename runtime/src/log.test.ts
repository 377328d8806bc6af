import { describe, expect, it } from 'vitest';
import { createLogger, scrubText } from './log.ts';

const TOKEN = `42|${'a1B2_c3-D4'.repeat(4)}xyz`;
const HEX = 'ab'.repeat(32);

function capture() {
  const lines: string[] = [];
  const log = createLogger('trace', 'test', { write: (s: string) => void lines.push(s) });
  return { log, text: () => lines.join('') };
}

describe('log redaction', () => {
  it('replaces secret-named fields at any depth, keeping counts', () => {
    const { log, text } = capture();
    log.info({
      user: { password: 'hunter2-pw', passwordHash: 'scrypt$1$2' },
      req: { headers: { authorization: 'Bearer x', cookie: 'sid=1', 'x-service-signature': 'sig-value-1' } },
      res: { headers: { 'set-cookie': ['adnet_session=sess-value-1; Path=/trpc; HttpOnly'] } },
      deep: { a: { b: { c: { postback_secret: 'pb-secret-1', apiKey: 'key-1' } } } },
      usage: { input_tokens: 12 },
    });
    const out = text();
    for (const secret of [
      'hunter2-pw',
      'scrypt$1$2',
      'Bearer x',
      'sid=1',
      'sess-value-1',
      'sig-value-1',
      'pb-secret-1',
      'key-1',
    ])
      expect(out).not.toContain(secret);
    expect(JSON.parse(out)).toMatchObject({ usage: { input_tokens: 12 }, user: { password: '[redacted]' } });
  });

  it('scrubs secrets out of free text: messages, errors, stacks and URLs', () => {
    const { log, text } = capture();
    const err = Object.assign(new Error(`WRONGTYPE for ${HEX} and token ${TOKEN}`), {
      command: { name: 'hget', args: ['{users}:pbsecret', 'plain-secret-arg'] },
    });
    log.error({ err, url: `https://t.example/pb?click=1&token=trk-123&sig=${HEX}` }, `failed for ${TOKEN}`);
    log.error(new Error(`alone with ${TOKEN}`));
    log.warn({ redis: 'redis://:redis-pw-1@127.0.0.1:6379/0', note: 'Authorization: Bearer some-bearer' }, 'retrying');
    log.warn(`sent Cookie: adnet_session=${TOKEN}; got Set-Cookie: adnet_session=${TOKEN}; Path=/trpc`);
    const out = text();
    for (const secret of [HEX, TOKEN, 'plain-secret-arg', 'trk-123', 'redis-pw-1', 'some-bearer'])
      expect(out).not.toContain(secret);
    expect(out).toContain('WRONGTYPE');
    expect(out).toContain('127.0.0.1:6379');
  });

  it('keeps content-addressed file names and ordinary text', () => {
    expect(scrubText(`/media/${HEX}.png`)).toBe(`/media/${HEX}.png`);
    expect(scrubText('GET /api/adv/campaigns/12 took 3 ms')).toBe('GET /api/adv/campaigns/12 took 3 ms');
    expect(scrubText(`key ${HEX}`)).toBe('key [redacted]');
  });
});
