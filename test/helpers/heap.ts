import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * The live heap in bytes after full collections: what a structure keeps, not what it made on
 * the way. `gc` is exposed at run time so no test needs a node flag.
 */
export function liveHeapBytes(): number {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}
