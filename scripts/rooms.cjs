'use strict';
/**
 * The rooms of the two largest units (docs/design.md §8), bottom to top: within vault/ and
 * tools/, a room may use the rooms below it, never those above, so neither unit has a cycle
 * inside it and a reader knows from a file's folder what it may lean on. A room is a folder
 * (`vault/files/`) or a file directly in the unit (`tools/errors.ts`). Every file of these
 * units lies in a listed room (test/architecture.test.ts checks it). Read by
 * .dependency-cruiser.cjs, which makes one rule of each pair.
 * @type {{ unit: string, rooms: { room: string, holds: string }[] }[]}
 */
const ROOMS = [
  {
    unit: 'vault/',
    rooms: [
      { room: 'files/', holds: 'the filesystem seam, paths and confinement, atomic and compared writes, the state folder' },
      { room: 'format/', holds: 'the note format: frontmatter, YAML, links, names, inert Markdown, templates' },
      { room: 'scan/', holds: 'the heads of notes for the scans, the listing of the vault, and the folder watcher' },
      { room: 'notes/', holds: "the meeting's own notes (§1): meeting, transcript, context and summary notes" },
    ],
  },
  {
    unit: 'tools/',
    rooms: [
      { room: 'errors.ts', holds: 'ToolError, the refusal every room throws' },
      { room: 'cache/', holds: 'texts and past summaries cached by file version' },
      { room: 'search/', holds: 'the search engine: .NET patterns, matching, worker threads, plans' },
      { room: 'binding/', holds: "what one run's tools share, and the caches it owns" },
      { room: 'define/', holds: 'making a tool: arguments, definition, result format, reads, stale edits' },
      { room: 'projects/', holds: 'the project and past-meeting tools' },
      { room: 'meeting/', holds: "the meeting's own tools and the speaker tools" },
      { room: 'search-tool.ts', holds: 'the search tool, which reads across the families' },
      { room: 'registry.ts', holds: 'binding the families into a run' },
      { room: 'offered-tools.ts', holds: 'which tools a run is offered, in which phase' },
    ],
  },
];

module.exports = { ROOMS };
