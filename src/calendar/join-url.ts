/**
 * The online meeting's link of an event (docs/design.md §12): a Teams, Zoom, Meet or Webex
 * address, looked for in the properties the services write first (Outlook's
 * X-MICROSOFT-SKYPETEAMSMEETINGURL, Google's X-GOOGLE-CONFERENCE, RFC 7986's CONFERENCE, URL),
 * then in the location, then in the description.
 */

const JOIN_URL =
  /https:\/\/(?:teams\.microsoft\.com|teams\.live\.com|(?:[\w-]+\.)*zoom\.us|(?:[\w-]+\.)*zoomgov\.com|meet\.google\.com|(?:[\w-]+\.)*webex\.com)\/[^\s<>"'\])}]*/i;

/** The first join link in `texts`, in their order; '' when none. */
export function findJoinUrl(texts: readonly string[]): string {
  for (const text of texts) {
    if (!text) continue;
    // A description may be megabytes: a link is looked for in its first 200,000 characters.
    const m = JOIN_URL.exec(text.length > 200_000 ? text.slice(0, 200_000) : text);
    if (m) return m[0].replace(/[.,;:!?]+$/, '');
  }
  return '';
}

/** The host of a join link, for what people are shown ('' when none). */
export function joinHost(url: string): string {
  try {
    return url ? new URL(url).host : '';
  } catch {
    return '';
  }
}
