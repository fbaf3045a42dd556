/** The program's version, shown by `--version` and written into every artifact. */
export const VERSION = "0.1.0";
