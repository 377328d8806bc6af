/** Orders Redis stream ids (`<ms>-<seq>`): the change log's positions, the `events` stream's entries. */
export function compareStreamIds(a: string, b: string): number {
  const [am = 0, as = 0] = a.split('-').map(Number);
  const [bm = 0, bs = 0] = b.split('-').map(Number);
  return am - bm || as - bs;
}
