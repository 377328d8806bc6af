// CSV as every export writes it (the statistics API, the cabinet's downloads). Zod-free: the cabinet
// bundles it.

/** A text cell a spreadsheet would read as a formula (OWASP's list: = + - @ tab CR). */
const FORMULA = /^[=+\-@\t\r]/;
const QUOTE = /[",\n\r]/;

/**
 * One cell. Text that starts like a formula gets a leading single quote and is quoted (OWASP's CSV
 * injection advice), so a spreadsheet shows it as text; text with a comma, quote or line break is
 * quoted with its quotes doubled. Numbers are written as numbers: a negative amount is not a formula.
 */
export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  if (FORMULA.test(value)) return `"'${value.replaceAll('"', '""')}"`;
  return QUOTE.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** A header line and one line per row, `\n`-separated, ending with a line break. */
export function csvTable<K extends string>(
  columns: readonly K[],
  rows: readonly Partial<Record<K, string | number | null | undefined>>[],
): string {
  return (
    [columns.map(csvCell).join(','), ...rows.map((r) => columns.map((c) => csvCell(r[c])).join(','))].join('\n') + '\n'
  );
}
