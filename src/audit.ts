/** The external-write audit (DESIGN section 3 step 6). Implemented with the tools. */
export class Audit {}
