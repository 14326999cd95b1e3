/** Types of dependency-rules.mjs for the TypeScript tests. */
export interface Violation {
  /** The rule's name in .dependency-cruiser.cjs, or `no-unit-cycle`. */
  rule: string;
  from: string;
  to: string;
  /** Which layer may not use which, or what the cycle is, and what to do. */
  message: string;
}

export function checkDependencies(root?: string, configFile?: string): Promise<Violation[]>;
export function describeViolation(violation: Violation): string;
export function unitOf(file: string): string | undefined;
