import type { RuleOp } from '@adnet/schemas/rules';

export interface OpDef {
  op: RuleOp;
  holds(value: number, threshold: number): boolean;
}

/** The comparisons a condition may make, value on the left: `spend_usd > 20` holds when the spend is above 20. */
export const RULE_OP_DEFS: Readonly<Record<RuleOp, OpDef>> = {
  '>': { op: '>', holds: (v, t) => v > t },
  '>=': { op: '>=', holds: (v, t) => v >= t },
  '<': { op: '<', holds: (v, t) => v < t },
  '<=': { op: '<=', holds: (v, t) => v <= t },
};
