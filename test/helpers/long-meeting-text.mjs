// The long meeting of the context-window tests and benchmarks: a deterministic 3-hour
// transcript. Plain JavaScript so that both the tests (TypeScript, through the .d.mts next to
// it) and the benchmarks (plain .mjs against dist/) use the very same text.

const SPEAKERS = ['Alice Martin', 'Bob Chen', 'Carol Diaz', 'Dan Okafor', 'Speaker 5'];
const TOPICS = [
  'the Q3 release of the billing service',
  'the PostgreSQL 16 migration',
  'on-call rotation and the pager noise',
  'the customer dashboard redesign',
  'hiring for the platform team',
  'the Kubernetes upgrade to 1.30',
  'budget for the observability vendor',
  'the data retention policy for EU customers',
];
const OPENERS = ['I think', 'Honestly,', 'So', 'Right, and', 'Okay, um,', 'From my side', 'To be fair,', 'Yeah, so'];
const PHRASES = [
  'we should ship it behind a feature flag first',
  'the load tests showed p99 latency around 480 milliseconds',
  'I can own the rollback plan and send it by Friday',
  'that depends on whether legal signs off on the contract',
  'we agreed last week to freeze the schema until the migration is done',
  'the staging cluster keeps running out of memory during the nightly batch',
  'let us put a ticket in and revisit it at the next planning meeting',
  'the numbers from finance are still preliminary, so take them with a grain of salt',
  'customers in the pilot asked mostly for CSV export and better filters',
  'I will pair with Carol on the alert thresholds tomorrow morning',
  'the vendor quoted eighteen thousand euros per year for the enterprise tier',
  'we decided to drop the legacy v1 endpoint on the first of December',
];

/** A tiny deterministic generator (mulberry32), so every run of a test sees the same text. */
export function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Transcript lines `[hh:mm:ss] Speaker: text`, about `words` words in all. */
export function transcriptLines(words = 30_000, seed = 7) {
  const next = random(seed);
  const pick = (items) => items[Math.floor(next() * items.length)];
  const lines = [];
  let count = 0;
  let seconds = 0;
  let topic = pick(TOPICS);
  while (count < words) {
    if (next() < 0.04) topic = pick(TOPICS);
    const parts = [pick(OPENERS)];
    if (next() < 0.3) parts.push(`about ${topic},`);
    const sentences = 1 + Math.floor(next() * 2);
    for (let i = 0; i < sentences; i++) parts.push(`${pick(PHRASES)}.`);
    const text = parts.join(' ');
    const n = text.split(/\s+/).length;
    const stamp = new Date(seconds * 1000).toISOString().slice(11, 19);
    lines.push(`[${stamp}] ${pick(SPEAKERS)}: ${text}`);
    count += n;
    seconds += Math.round(n / 2.8);
  }
  return lines;
}

