export declare const TICK_MS: number;
export declare const AFTERMATH_MS: number;
export declare function idleWindowDelayMs(now: number, windowMs: number, options?: { tickMs?: number; aftermathMs?: number; marginMs?: number }): number;
