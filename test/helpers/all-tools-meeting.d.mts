export const NAME: string;
export const MEETING: string;
export const TRANSCRIPT: string;
export const CONTEXT: string;
export const SUMMARY: string;
/** The project file the reader model appends to after the summary. */
export const PROJECT_FILE: string;
/** Lines before the first transcript line (the transcript note's frontmatter). */
export const HEADER_LINES: number;
/** The 3-hour transcript's speech lines (1,500 lines, about 53,000 tokens). */
export function allToolsSpeech(): string[];
/** Every file of the vault, by vault-relative path. */
export function allToolsVault(speech?: string[]): Record<string, string>;
