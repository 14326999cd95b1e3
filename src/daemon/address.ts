import type { Settings } from '../config.js';
import { localBaseUrl } from '../vault/state.js';

/** The status page's address that signs the browser in (docs/design.md §6, `open`). */
export function statusPageUrl(http: Settings['Http'], token: string): string {
  return `${localBaseUrl(http)}/?token=${encodeURIComponent(token)}`;
}
