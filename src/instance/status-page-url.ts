/** The status page's address that signs the browser in (docs/design.md §6, `open`). */
export function statusPageUrl(baseUrl: string, token: string): string {
  return `${baseUrl}/?token=${encodeURIComponent(token)}`;
}
