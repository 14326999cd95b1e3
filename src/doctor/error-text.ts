/** An fs or socket error as one line for people: the code (EACCES, EADDRNOTAVAIL) and the message. */
export function errorText(err: unknown): string {
  const code = (err as { code?: unknown })?.code;
  const message = err instanceof Error ? err.message : String(err);
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}
