/**
 * Dependency rules for src/ (docs/design.md §8). Checked by `npm run lint:deps`
 * (scripts/dependency-rules.mjs), which also finds cycles between units, a check
 * dependency-cruiser has no rule for.
 *
 * A unit is a folder of src/ (agent/, daemon/, …) or a file directly in src/ (config.ts, …).
 * Layers, top to bottom: a unit may use the units of the layers below its own, never those
 * above. Type-only imports count: they tie the design together as much as the others.
 */

/** @type {{ name: string, units: string[] }[]} */
const LAYERS = [
  { name: 'cli', units: ['cli.ts'] },
  { name: 'commands', units: ['commands/'] },
  { name: 'daemon and command helpers', units: ['daemon/', 'doctor/', 'service/', 'example-vault.ts'] },
  { name: 'import', units: ['import/'] },
  // ask/ (docs/design.md §11) is an agent run over the MCP server's tools, for the daemon and the `ask` command.
  { name: 'runtime and meeting', units: ['runtime.ts', 'process-base.ts', 'meeting/', 'ask/'] },
  // The MCP server (docs/design.md §10) reads the vault with the tools' engines; only commands/ starts it.
  { name: 'mcp server', units: ['mcp/'] },
  { name: 'tools, agent, audit, instance and sessions', units: ['tools/', 'agent/', 'audit.ts', 'instance/', 'sessions/'] },
  // What a calendar match writes into a meeting's notes (docs/design.md §12): above the calendar and the vault it joins.
  { name: 'meeting event', units: ['meeting-event/'] },
  // The calendar (docs/design.md §12): sources, fetching, reading, the lookup by time. It knows no
  // notes: what a match writes lives with the notes, above it.
  { name: 'calendar', units: ['calendar/'] },
  { name: 'vault, log and external programs', units: ['vault/', 'log.ts', 'external-programs.ts'] },
  { name: 'config', units: ['config.ts', 'config-hints.ts'] },
  { name: 'shared definitions', units: ['errors.ts', 'clock.ts', 'loaded-packages.ts', 'window-defaults.ts', 'http-io.ts'] },
];

const ORDER = LAYERS.map((layer) => layer.name).join(' → ');

/** A path pattern matching the files of these units. */
function unitsPath(units) {
  const escaped = units.map((unit) => unit.replace(/[.]/g, '\\.') + (unit.endsWith('/') ? '' : '$'));
  return `^src/(${escaped.join('|')})`;
}

function slug(name) {
  return name.replace(/[^a-z]+/g, '-');
}

/** One rule per pair of layers: the lower one may not use the upper one. */
const upward = LAYERS.flatMap((lower, i) =>
  LAYERS.slice(0, i).map((upper) => ({
    name: `layer-${slug(lower.name)}-not-${slug(upper.name)}`,
    severity: 'error',
    comment:
      `${lower.name} (${lower.units.join(', ')}) may not use ${upper.name} (${upper.units.join(', ')}): ` +
      `layers run ${ORDER}, each using only those below it. Move what both need down, or pass it in.`,
    from: { path: unitsPath(lower.units) },
    to: { path: unitsPath(upper.units) },
  })),
);

/** Units of one layer that must not use each other (so the layer has no cycle either). */
const PEERS = [
  {
    name: 'agent-not-tools-or-audit',
    from: ['agent/'],
    to: ['tools/', 'audit.ts'],
    why: 'the agent loop sees tool calls and results as data (agent/types.ts); the tools are built on the agent, not the reverse',
  },
  {
    name: 'audit-not-tools-or-agent',
    from: ['audit.ts'],
    to: ['tools/', 'agent/'],
    why: 'the tools record their writes in the audit; helpers both need (binary detection, the state folder) belong in vault/',
  },
  {
    name: 'agent-not-vault',
    from: ['agent/'],
    to: ['vault/'],
    why: 'the agent is a model engine that knows no meetings and no notes: what it needs of a meeting (the prompt, the first message, the tools) is handed to it by meeting/',
  },
  {
    name: 'meeting-not-runtime',
    from: ['meeting/'],
    to: ['runtime.ts'],
    why: 'the runtime assembles the meeting run\'s dependencies (model client, vault, logger); the run gets them passed in',
  },
  {
    name: 'daemon-apart-from-command-helpers',
    from: ['daemon/'],
    to: ['doctor/', 'service/', 'example-vault.ts'],
    why: 'the daemon runs without the command-line helpers',
  },
  {
    name: 'only-commands-start-the-mcp-server',
    from: ['daemon/', 'doctor/', 'service/', 'example-vault.ts', 'runtime.ts', 'pipeline.ts'],
    to: ['mcp/'],
    why: 'the MCP server is a command of its own (meeting-assistant mcp), read-only, apart from the daemon and its runs',
  },
  {
    name: 'command-helpers-apart-from-daemon',
    from: ['doctor/', 'service/', 'example-vault.ts'],
    to: ['daemon/'],
    why: 'the command-line helpers work without a daemon; what they share with it (the state folder) belongs in vault/',
  },
];

const peers = PEERS.map((rule) => ({
  name: rule.name,
  severity: 'error',
  comment: `${rule.from.join(', ')} may not use ${rule.to.join(', ')}: ${rule.why}.`,
  from: { path: unitsPath(rule.from) },
  to: { path: unitsPath(rule.to) },
}));

const { ROOMS } = require('./scripts/rooms.cjs');

/** One rule per pair of rooms of a unit: the lower one may not use the upper one. */
const roomRules = ROOMS.flatMap(({ unit, rooms }) => {
  const order = rooms.map((r) => unit + r.room).join(' → ');
  return rooms.flatMap((lower, i) =>
    rooms.slice(i + 1).map((upper) => ({
      name: `room-${slug(unit + lower.room).replace(/-$/, '')}-not-${slug(unit + upper.room).replace(/-$/, '')}`,
      severity: 'error',
      comment:
        `${unit}${lower.room} (${lower.holds}) may not use ${unit}${upper.room} (${upper.holds}): ` +
        `the rooms of ${unit} run ${order}, bottom to top, each using only those below it. Move what both need down, or pass it in.`,
      from: { path: unitsPath([unit + lower.room]) },
      to: { path: unitsPath([unit + upper.room]) },
    })),
  );
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'Files import each other in a cycle (type-only imports count): move the shared definition into a module both can use.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to no file: a typo, or a package missing from package.json.',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'not-to-dev-dependency',
      severity: 'error',
      comment: 'src/ ships to users; a devDependency is not installed with the package. Add it to dependencies.',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'] },
    },
    ...upward,
    ...peers,
    ...roomRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // The TypeScript sources, not dist/: the compiled JavaScript has lost its type-only imports.
    // dependency-cruiser reads TypeScript through the compiler's JavaScript API, which
    // TypeScript 7 no longer ships, so it parses with swc (@swc/core), whose syntax tree keeps
    // every `import type` and `import { type X }`. Nothing in tsconfig.json (no `paths`, no
    // `baseUrl`) changes how imports resolve, so it is not needed for resolution.
    parser: 'swc',
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json', '.d.ts'],
    },
  },
};
