import { describe, expect, it } from 'vitest';
import { Notifier } from './notices.ts';
import type { NoticeLedger } from './notices.ts';

/** The ledger's contract in memory (the Redis one is SET NX, exercised in tests/e2e/demand.test.ts). */
function memoryLedger(): NoticeLedger & { marks: Map<string, string> } {
  const marks = new Map<string, string>();
  return {
    marks,
    claim: (key) => {
      if (marks.has(key)) return Promise.resolve(false);
      marks.set(key, 'sending');
      return Promise.resolve(true);
    },
    finish: (key, sent) => {
      marks.set(key, sent ? 'sent' : 'failed');
      return Promise.resolve();
    },
  };
}

describe('Notifier', () => {
  it('sends a notice once however many callers ask at once, and never again once sent', async () => {
    const calls: string[] = [];
    const n = new Notifier(memoryLedger(), { notify: (url) => (calls.push(url), Promise.resolve(true)) });
    const outcomes = await Promise.all(Array.from({ length: 50 }, () => n.send('a:1:nurl', 'https://d.example/win')));
    expect(outcomes.filter((o) => o.sent)).toHaveLength(1);
    expect(await n.send('a:1:nurl', 'https://d.example/win')).toMatchObject({ sent: false, attempts: 0 });
    expect(calls).toHaveLength(1);
  });

  it('retries a failing notice a bounded number of times, and records the failure', async () => {
    const ledger = memoryLedger();
    let calls = 0;
    const n = new Notifier(ledger, { notify: () => Promise.resolve(++calls === 3) }, { retryDelaysMs: [1, 1, 1] });
    expect(await n.send('k', 'https://d.example/x')).toEqual({ key: 'k', sent: true, attempts: 3 });
    const never = new Notifier(ledger, { notify: () => Promise.resolve(false) }, { retryDelaysMs: [1, 1] });
    expect(await never.send('k2', 'https://d.example/x')).toEqual({ key: 'k2', sent: false, attempts: 3 });
    expect(ledger.marks.get('k2')).toBe('failed');
    expect(ledger.marks.get('k')).toBe('sent');
  });

  it('on close lets the attempt in flight end, then retries nothing: a notice is not sent again by a process on its way out', async () => {
    const ledger = memoryLedger();
    const calls: number[] = [];
    let answer: (ok: boolean) => void = () => undefined;
    const n = new Notifier(
      ledger,
      { notify: () => new Promise<boolean>((r) => (calls.push(1), (answer = r))) },
      { retryDelaysMs: [1, 1] },
    );
    const sending = n.send('k', 'https://d.example/x');
    await new Promise((r) => setTimeout(r, 5));
    let closed = false;
    const closing = n.close(1_000).then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 5));
    // The attempt on the wire holds the close until it ends.
    expect(closed).toBe(false);
    answer(false);
    await closing;
    expect(await sending).toEqual({ key: 'k', sent: false, attempts: 1 });
    expect(calls).toHaveLength(1);
    expect(ledger.marks.get('k')).toBe('failed');
  });
});
