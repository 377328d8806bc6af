import { describe, expect, it } from 'vitest';
import { HotCounter, HotHistogram } from './hot-path-metrics.ts';

describe('hot-path metrics', () => {
  it('renders cumulative histogram buckets, sum and count in the Prometheus text format', () => {
    const h = new HotHistogram('t_seconds', 'test', [0.001, 0.01, 0.1]);
    for (const v of [0.0005, 0.001, 0.005, 0.05, 2]) h.observe('/r', () => ({ route: '/r' }), v);
    expect(h.render({ engine: 'e1' }).split('\n')).toEqual([
      '# HELP t_seconds test',
      '# TYPE t_seconds histogram',
      't_seconds_bucket{route="/r",engine="e1",le="0.001"} 2',
      't_seconds_bucket{route="/r",engine="e1",le="0.01"} 3',
      't_seconds_bucket{route="/r",engine="e1",le="0.1"} 4',
      't_seconds_bucket{route="/r",engine="e1",le="+Inf"} 5',
      't_seconds_sum{route="/r",engine="e1"} 2.0565',
      't_seconds_count{route="/r",engine="e1"} 5',
      '',
    ]);
  });

  it('counts per label set and escapes label values', () => {
    const c = new HotCounter('t_total', 'test');
    c.inc('a', () => ({ reason: 'say "hi"\\now' }));
    c.inc('a', () => ({ reason: 'never read again' }), 2);
    c.inc('b', () => ({ reason: 'b' }));
    expect(c.render({})).toContain('t_total{reason="say \\"hi\\"\\\\now"} 3\n');
    expect(c.render({})).toContain('t_total{reason="b"} 1\n');
  });
});
