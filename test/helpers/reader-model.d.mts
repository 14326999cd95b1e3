export interface ReaderRequest {
  instructions: string;
  /** Every message's text (and tool call arguments), oldest first. */
  texts: string[];
  hasTools: boolean;
  /** The names of the tools offered (absent: not told; the reader then reads as if offered read_transcript). */
  tools?: string[];
  /** The client's estimate of the request (the server counts `scale` times as many). */
  tokens: number;
  /** An emulated server (server-kinds.ts) cut this request: its count of it, and the tokens it kept. */
  cut?: { sent: number; kept: number };
}

export interface ReaderReply {
  content?: string;
  toolCalls?: { name: string; arguments: object }[];
  usage: { input: number; output: number };
}

export interface ReaderStats {
  requests: number;
  agentRequests: number;
  /** Prompt tokens sent, as the server counts them. */
  promptTokens: number;
  largest: number;
  /** Requests the server cut silently. */
  cut: number;
  everyLineBeforeSummary: boolean | undefined;
  /** Requests after the summary call that offered write_projectfile. */
  projectOffersAfterSummary: number;
  /** The tool names of each agent request, in order. */
  toolSets: string[][];
}

export interface ReaderModel {
  respond(request: ReaderRequest): ReaderReply;
  readonly stats: ReaderStats;
  linesReached(): number;
  readonly totalLines: number;
}

export function createReaderModel(options: {
  /** The transcript's speech lines, numbered over the whole file: first..last. */
  first: number;
  last: number;
  chunk?: number;
  countTokens: (text: string) => number;
  /** The server's window: a request it counts over it is cut as Ollama cuts it (the usage reports the kept tokens). */
  serverWindow?: number;
  scale?: number;
  /** After the summary, when offered write_projectfile: read this project file, then append `content` to it. */
  updatesProjects?: { project: string; path: string; content: string };
}): ReaderModel;
