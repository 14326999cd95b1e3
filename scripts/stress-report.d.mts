export interface RunResult {
  ms: number;
  failures: string[];
}

export function failuresOf(report: unknown, exitCode: number | null, root: string): string[];
export function summary(results: readonly RunResult[], load: number): string[];
