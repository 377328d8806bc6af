import { GVL, TCModel, TCString } from '@iabtcf/core';

// For tests: TCF v2 consent strings made by the IAB's own library, as a consent platform would.

const purpose = (n: number) => ({ id: n, name: `p${n}`, description: '', descriptionLegal: '' });
// A minimal vendor list: encoding needs one, and our rules read purposes only.
const gvl = new GVL({
  gvlSpecificationVersion: 2,
  vendorListVersion: 100,
  tcfPolicyVersion: 4,
  lastUpdated: '2026-01-01T00:00:00Z',
  purposes: Object.fromEntries([1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => [n, purpose(n)])),
  specialPurposes: {},
  features: {},
  specialFeatures: {},
  vendors: {},
  stacks: {},
});

/** A TC string consenting to `consents` and claiming legitimate interest in `interests`. */
export function tcString(consents: number[], interests: number[] = []): string {
  const m = new TCModel(gvl);
  m.cmpId = 10;
  m.cmpVersion = 1;
  m.purposeConsents.set(consents);
  m.purposeLegitimateInterests.set(interests);
  return TCString.encode(m);
}
