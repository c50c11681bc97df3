// An instant as the pages show it: the ISO string to the second, a space for the "T", no zone (every
// time on these pages is UTC, on the clock the page names).
export const when = (iso: string) => iso.slice(0, 19).replace("T", " ");
