export function startConfig(root?: string): string;
