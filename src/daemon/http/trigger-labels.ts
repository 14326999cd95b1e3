/**
 * What started a run, as the status page and `status` name it (docs/design.md §2 triggers).
 * The queue keeps short codes (`transcript`, `retry`, …; a job resumed at start gets
 * `, resumed`); people read these labels.
 */
const LABELS: Record<string, string> = {
  transcript: 'transcript finished',
  retry: 'retry checkbox',
  link: 'retry link',
  page: 'status page',
  api: 'API',
  cli: 'command line',
  import: 'import',
  'catch-up': 'catch-up',
};

export function triggerLabel(trigger: string): string {
  const resumed = /, resumed$/.exec(trigger);
  const code = resumed ? trigger.slice(0, resumed.index) : trigger;
  const label = LABELS[code] ?? code;
  return resumed ? `${label}, resumed at start` : label;
}
