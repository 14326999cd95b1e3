/**
 * What a reader could not take as it was (docs/design.md §9, Limits; §9a): cues whose time
 * cannot be a time (their words kept at the previous cue's time) and parts of the file that
 * could not be read at all. The import says both, in the log and in the context note, so a
 * loss is never silent. Places are 1-based lines of the file, or segments of a JSON file.
 */
export class ReadReport {
  /** What a place is: a line of the file, or a segment of a JSON transcript. */
  unit: 'line' | 'segment' = 'line';
  readonly unread: number[] = [];
  readonly retimed: number[] = [];

  /** A cue (or a block of text) that is not in the transcript. */
  lost(place: number): void {
    this.unread.push(place);
  }

  /** A cue kept at the previous cue's time because its own could not be a time. */
  timeless(place: number): void {
    this.retimed.push(place);
  }

  get empty(): boolean {
    return this.unread.length === 0 && this.retimed.length === 0;
  }

  /** One sentence per kind: `3 cues could not be read: lines 120, 348, 901 of the file`. */
  sentences(): string[] {
    const out: string[] = [];
    if (this.unread.length > 0) out.push(`${count(this.unread.length)} could not be read: ${this.places(this.unread)}`);
    if (this.retimed.length > 0) {
      const n = this.retimed.length;
      out.push(`${count(n)} had a time that cannot be a time, ${n === 1 ? 'its words are' : 'their words are'} kept at the time of the cue before: ${this.places(this.retimed)}`);
    }
    return out;
  }

  private places(list: number[]): string {
    const shown = list.slice(0, 20).join(', ');
    const more = list.length > 20 ? ` and ${list.length - 20} more` : '';
    return `${this.unit}${list.length === 1 ? '' : 's'} ${shown}${more} of the file`;
  }
}

const count = (n: number) => `${n} cue${n === 1 ? '' : 's'}`;
