// The one error the port throws for input the spec calls erroneous (selection.md §6, wire.md §4.5,
// §7); the protocol loop answers it with `errored`. Its message names where the value sits, the
// value, why it is refused and what to send instead.

export interface InvalidInputDetails {
  readonly value: unknown;
  readonly path: string;
  readonly reason: string;
  readonly fix: string;
  /** How to spell the value when JSON.stringify would not (an integer JSON.parse has rounded). */
  readonly shown?: string;
}

function spell(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

export class InvalidInput extends Error {
  readonly path: string;

  constructor(details: InvalidInputDetails) {
    let shown = details.shown ?? spell(details.value);
    if (shown.length > 120) shown = `${shown.slice(0, 117)}...`;
    super(`${details.path}: ${shown} ${details.reason}. ${details.fix}`);
    this.name = "InvalidInput";
    this.path = details.path;
  }
}
