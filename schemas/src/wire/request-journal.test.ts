import { describe, expect, it } from 'vitest';
import { encodeJournalRecord, pendingRequests } from './request-journal.ts';
import type { JournaledRequest } from './request-journal.ts';

const req = (id: string, route: JournaledRequest['route'] = 'click'): JournaledRequest => ({
  id,
  route,
  at: 1_764_000_000_000,
  params: ['TICKET', 'tok'],
  query: 'ttc=2000&x=5',
  ip: '203.0.113.7',
  viaProxy: false,
  userAgent: 'Mozilla/5.0 "quoted" \n line',
});

describe('the request journal codec', () => {
  it('gives back every request not marked done, in order', () => {
    const text = [req('a'), req('b', 'beacon'), { done: 'a' }, req('c', 'win')].map(encodeJournalRecord).join('');
    expect(pendingRequests(text)).toEqual({ pending: [req('b', 'beacon'), req('c', 'win')], skipped: [] });
  });

  it('skips a torn last record and keeps the rest', () => {
    const whole = encodeJournalRecord(req('a')) + encodeJournalRecord(req('b'));
    const torn = encodeJournalRecord(req('c')).slice(0, 40);
    expect(pendingRequests(whole + torn)).toEqual({
      pending: [req('a'), req('b')],
      skipped: [{ line: 3, reason: 'torn' }],
    });
    // A record cut exactly before its newline is torn too: its checksum line is whole but unfinished.
    const cut = encodeJournalRecord(req('c')).slice(0, -1);
    expect(pendingRequests(whole + cut).skipped).toEqual([{ line: 3, reason: 'torn' }]);
  });

  it('skips garbage, a flipped byte and a record of another shape alone', () => {
    const good = encodeJournalRecord(req('a'));
    const flipped = encodeJournalRecord(req('b')).replace('203.0.113.7', '203.0.113.8');
    const shaped = encodeJournalRecord({ ...req('c'), route: 'bid' } as unknown as JournaledRequest);
    const text =
      good + '\u0000\u0001 binary garbage\n' + flipped + shaped + 'deadbeef {"id":1}\n' + encodeJournalRecord(req('d'));
    const { pending, skipped } = pendingRequests(text);
    expect(pending.map((r) => r.id)).toEqual(['a', 'd']);
    expect(skipped).toEqual([
      { line: 2, reason: 'not_a_record' },
      { line: 3, reason: 'checksum' },
      { line: 4, reason: 'not_a_record' },
      { line: 5, reason: 'checksum' },
    ]);
  });

  it('reads an empty journal and one of random bytes without throwing', () => {
    expect(pendingRequests('')).toEqual({ pending: [], skipped: [] });
    const noise = Array.from({ length: 5000 }, (_, i) => String.fromCharCode((i * 7919) % 256)).join('');
    expect(pendingRequests(noise).pending).toEqual([]);
  });
});
