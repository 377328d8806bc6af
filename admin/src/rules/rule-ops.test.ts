import { RULE_OPS } from '@adnet/schemas/rules';
import { describe, expect, it } from 'vitest';
import { RULE_OP_DEFS } from './rule-ops.ts';

describe('rule comparisons', () => {
  it('registers every op, each under its own name', () => {
    expect(Object.keys(RULE_OP_DEFS).sort()).toEqual([...RULE_OPS].sort());
    for (const [op, def] of Object.entries(RULE_OP_DEFS)) expect(def.op).toBe(op);
  });

  it('compares the value (left) with the threshold (right), the edge included only by >= and <=', () => {
    const at = (op: keyof typeof RULE_OP_DEFS) => [1, 2, 3].map((v) => RULE_OP_DEFS[op].holds(v, 2));
    expect(at('>')).toEqual([false, false, true]);
    expect(at('>=')).toEqual([false, true, true]);
    expect(at('<')).toEqual([true, false, false]);
    expect(at('<=')).toEqual([true, true, false]);
  });
});
