// `tsx bench/src/micro-delivery.ts`: what frequency caps and schedules add per candidate and per request,
// part by part (tinybench), since on a shared 2-core machine they vanish in the whole handler's noise.
import { Bench } from 'tinybench';
import { candidateFixture, impFixture } from '@adnet/engine/auction-fixtures';
import { CANDIDATE_FILTERS } from '@adnet/engine/filters';
import { endedFilter } from '@adnet/engine/filters/ended';
import { frequencyCapFilter } from '@adnet/engine/filters/frequency-cap';
import { notStartedFilter } from '@adnet/engine/filters/not-started';
import { outsideScheduleFilter } from '@adnet/engine/filters/outside-schedule';
import { FrequencyCapCache, userKeyOf } from '@adnet/engine/frequency-caps';
import { ZoneClock } from '@adnet/schemas/schedule';

const hours = [8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22];
const scheduled = candidateFixture({
  start_at: '2020-01-01T00:00:00Z',
  end_at: '2099-01-01T00:00:00Z',
  dayparting: { mon: hours, tue: hours, wed: hours, thu: hours, fri: hours, sat: hours, sun: hours },
  timezone: 'Europe/Berlin',
});
const plain = candidateFixture();
const capped = candidateFixture({ frequency_cap: { impressions: 3, period_hours: 24 } });
const format = new Intl.DateTimeFormat('en-US', {
  timeZone: 'Europe/Berlin',
  weekday: 'short',
  hour: 'numeric',
  hourCycle: 'h23',
});
const clock = new ZoneClock('Europe/Berlin');
// Reads answer at once with nothing: the cost here is the engine's own.
const caps = new FrequencyCapCache({
  store: { read: () => Promise.resolve(new Map()), count: () => Promise.resolve() },
});
const now = Date.now();
const known = Array.from({ length: 1_000 }, (_, i) => `w:known-user-${i}`);
for (const id of known) caps.viewer(id, now)?.capped(capped);
let n = 0;

const scheduleFilters = [notStartedFilter, endedFilter, outsideScheduleFilter];
const bench = new Bench({ time: 1_000 });
bench
  .add('schedule filters, candidate without a schedule', () => {
    const imp = impFixture({ ts: now + (n++ % 1_000) });
    for (const f of scheduleFilters) f.reject(plain, imp);
  })
  .add('schedule filters, scheduled candidate (start, end, dayparting)', () => {
    const imp = impFixture({ ts: now + (n++ % 1_000) });
    for (const f of scheduleFilters) f.reject(scheduled, imp);
  })
  .add('local weekday and hour: Intl formatToParts (kept formatter)', () => void format.formatToParts(now + n++))
  .add('local weekday and hour: per-zone clock (cached a minute)', () => void clock.weekHour(now + (n++ % 1_000)))
  .add('user key (SHA-256 of the id)', () => void userKeyOf(`p1:exchange-user-${n++}`))
  .add(
    'frequency cap, uncapped candidate (viewer made, never looked up)',
    () => void frequencyCapFilter.reject(plain, impFixture({ viewer: caps.viewer(`w:u-${n++}`, now) })),
  )
  .add(
    'frequency cap, a user seen before (copy fresh)',
    () => void frequencyCapFilter.reject(capped, impFixture({ viewer: caps.viewer(known[n++ % known.length], now) })),
  )
  .add(
    'frequency cap, a new user (copy made, read sent)',
    () => void frequencyCapFilter.reject(capped, impFixture({ viewer: caps.viewer(`w:new-${n++}`, now) })),
  )
  .add('all candidate filters, capped and scheduled candidate', () => {
    const imp = impFixture({ ts: now, viewer: caps.viewer(known[n++ % known.length], now) });
    for (const f of CANDIDATE_FILTERS) if (f.reject(scheduled, imp) || f.reject(capped, imp)) break;
  });
await bench.run();

const ns = (ms: number | undefined) => Math.round((ms ?? 0) * 1_000_000);
console.log('| what | mean ns | p99 ns |\n|---|---|---|');
for (const t of bench.tasks) {
  const r = t.result && 'latency' in t.result ? t.result : undefined;
  console.log(`| ${t.name} | ${ns(r?.latency.mean)} | ${ns(r?.latency.p99)} |`);
}
