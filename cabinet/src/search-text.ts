/** Lowercase without accents, so "cote" finds Côte d'Ivoire and "ALAND" Åland Islands. */
const fold = (s: string): string =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();

/** Whether a listed choice answers what was typed into a picker's search box: any part of its label. */
export const matchesSearch = (label: string, query: string): boolean => fold(label).includes(fold(query.trim()));
