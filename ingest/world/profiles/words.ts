/**
 * Word lists are written as comma-separated text so a list of forty names stays a few lines long (the
 * formatter would otherwise put every array element on its own line).
 */
export function words(text: string): string[] {
  return text
    .split(',')
    .map((w) => w.trim())
    .filter((w) => w !== '');
}
