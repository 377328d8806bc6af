/**
 * The admin directory's one rule for every list (advertisers, publishers, sites, campaigns): keep the rows
 * whose text contains the query, order them by one key (ties by id, so pages never overlap), and cut one
 * page. Plain data in, plain data out: the router reads the rows, this decides which ones go out.
 */
export interface DirectoryQuery<S extends string> {
  q: string;
  sort: S;
  dir: 'asc' | 'desc';
  offset: number;
  limit: number;
}

export interface DirectoryPage<T> {
  total: number;
  offset: number;
  limit: number;
  items: T[];
}

export interface DirectoryFields<T, S extends string> {
  /** The texts a query is looked for in (names, emails, domains); `#<id>` and the bare id always match too. */
  text(row: T): readonly string[];
  id(row: T): number;
  /** The sort keys' values. */
  keys: Record<S, (row: T) => string | number>;
}

export function matches<T>(row: T, q: string, fields: Pick<DirectoryFields<T, string>, 'text' | 'id'>): boolean {
  const needle = q.trim().toLowerCase();
  if (!needle) return true;
  const id = String(fields.id(row));
  if (needle === id || needle === `#${id}`) return true;
  return fields.text(row).some((t) => t.toLowerCase().includes(needle));
}

export function directoryPage<T, S extends string>(
  rows: readonly T[],
  query: DirectoryQuery<S>,
  fields: DirectoryFields<T, S>,
): DirectoryPage<T> {
  const found = rows.filter((r) => matches(r, query.q, fields));
  const key = fields.keys[query.sort];
  const sign = query.dir === 'desc' ? -1 : 1;
  found.sort((a, b) => {
    const x = key(a);
    const y = key(b);
    const by =
      typeof x === 'number' && typeof y === 'number'
        ? x - y
        : String(x).localeCompare(String(y), 'en', { numeric: true });
    return by !== 0 ? sign * by : fields.id(a) - fields.id(b);
  });
  return {
    total: found.length,
    offset: query.offset,
    limit: query.limit,
    items: found.slice(query.offset, query.offset + query.limit),
  };
}

/** The host a landing URL leads to (what a moderator judges), or the text itself when it is not a URL. */
export function landingDomain(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
}
