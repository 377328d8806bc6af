import { describe, expect, it } from 'vitest';
import type { AudienceStore, Membership } from '../auction/ports.ts';
import { AudienceMembers } from './audience-members.ts';
import { userKeyOf } from './frequency-caps.ts';

/** A store in memory whose reads answer only when the test lets them. */
function store() {
  const held = new Map<string, Map<number, number>>();
  const pending: (() => void)[] = [];
  let reads = 0;
  const s: AudienceStore = {
    read: (key) => {
      reads++;
      return new Promise((resolve) => pending.push(() => resolve(new Map(held.get(key)))));
    },
    add: (key, ms: readonly Membership[]) => {
      const m = held.get(key) ?? new Map<number, number>();
      for (const x of ms) m.set(x.audienceId, Math.max(m.get(x.audienceId) ?? 0, x.ends));
      held.set(key, m);
      return Promise.resolve();
    },
  };
  const answer = async () => {
    for (const p of pending.splice(0)) p();
    await new Promise((r) => setImmediate(r));
  };
  return { s, held, answer, reads: () => reads };
}

describe('audience members', () => {
  it('answers from memory: a visitor not read yet is no member, and is once the background read answers', async () => {
    const st = store();
    st.held.set(userKeyOf('w:alice-first-party-id'), new Map([[7, 10_000]]));
    const m = new AudienceMembers({ store: st.s });
    expect(m.memberOfAny('w:alice-first-party-id', [7], 1_000)).toBe(false);
    expect(st.reads()).toBe(1);
    // Asked again before the read answers: no second read.
    expect(m.memberOfAny('w:alice-first-party-id', [7], 1_100)).toBe(false);
    expect(st.reads()).toBe(1);
    await st.answer();
    expect(m.memberOfAny('w:alice-first-party-id', [7], 1_200)).toBe(true);
    expect(m.memberOfAny('w:alice-first-party-id', [8], 1_200)).toBe(false);
    expect(m.memberOfAny('w:bob-first-party-idxx', [7], 1_200)).toBe(false);
  });

  it('ends a membership at its end, and learns one another engine added at the next read past the refresh time', async () => {
    const st = store();
    const key = userKeyOf('w:carol');
    st.held.set(key, new Map([[7, 5_000]]));
    const m = new AudienceMembers({ store: st.s, refreshMs: 1_000 });
    m.memberOfAny('w:carol', [7], 0);
    await st.answer();
    expect(m.memberOfAny('w:carol', [7], 4_999)).toBe(true);
    await st.answer();
    expect(m.memberOfAny('w:carol', [7], 5_000)).toBe(false);
    // Another engine (or the admin) adds a membership: seen once this engine reads again.
    st.held.set(key, new Map([[9, 60_000]]));
    expect(m.memberOfAny('w:carol', [9], 5_001)).toBe(false);
    await st.answer();
    // The last read went at 4 999: none before 5 999.
    expect(m.memberOfAny('w:carol', [9], 5_500)).toBe(false);
    expect(st.reads()).toBe(2);
    expect(m.memberOfAny('w:carol', [9], 6_000)).toBe(false);
    await st.answer();
    expect(m.memberOfAny('w:carol', [9], 6_001)).toBe(true);
  });

  it('knows at once what this engine adds, and keeps it over a read sent before it', async () => {
    const st = store();
    const m = new AudienceMembers({ store: st.s });
    m.memberOfAny('w:dave', [3], 0);
    m.add(userKeyOf('w:dave'), [{ audienceId: 3, ends: 100_000 }], 10);
    expect(m.memberOfAny('w:dave', [3], 20)).toBe(true);
    // The read that was on its way predates the add: its empty answer must not undo it.
    await st.answer();
    expect(m.memberOfAny('w:dave', [3], 30)).toBe(true);
    await st.answer();
    expect(m.memberOfAny('w:dave', [3], 40)).toBe(true);
    expect(st.held.get(userKeyOf('w:dave'))?.get(3)).toBe(100_000);
  });

  it('holds at most maxVisitors, dropping the least recently seen', () => {
    const st = store();
    const m = new AudienceMembers({ store: st.s, maxVisitors: 3 });
    for (const v of ['a', 'b', 'c', 'd', 'e']) m.memberOfAny(`w:${v}`, [1], 0);
    expect(m.size).toBe(3);
  });
});
