/**
 * A function's answers kept per string argument, for inputs that repeat heavily on a hot path (user
 * agents, client addresses). At most `max` answers are kept: past that the memo starts over, so a
 * flood of made-up inputs costs recomputation, never memory.
 */
export function memoByString<T>(compute: (key: string) => T, max = 10_000): (key: string) => T {
  const seen = new Map<string, T>();
  return (key) => {
    const hit = seen.get(key);
    // A second lookup only for answers that are undefined themselves.
    if (hit !== undefined || seen.has(key)) return hit as T;
    const value = compute(key);
    if (seen.size >= max) seen.clear();
    seen.set(key, value);
    return value;
  };
}
