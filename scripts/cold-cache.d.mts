export declare const DROP_CACHES: string;
export declare function startCacheDrops(everyMs: number, deadline: number, drop?: () => void): { stop(): void; drops(): number };
