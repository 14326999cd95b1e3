/** A room of vault/ or tools/ (scripts/rooms.cjs): a folder (`files/`) or a file directly in the unit. */
export interface Room {
  room: string;
  holds: string;
}

export declare const ROOMS: { unit: string; rooms: Room[] }[];
