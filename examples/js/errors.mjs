// The one error the port throws for input the spec calls erroneous (selection.md §6, wire.md §7);
// the protocol answers it with `errored`. The message names the value, where it was, why the
// spec refuses it and what to send instead.

export class InvalidInput extends Error {
  constructor({ value, path, reason, fix, shown: spelled }) {
    // `shown` overrides how the value is spelled (an integer literal JSON.parse has rounded).
    let shown = spelled;
    try {
      shown ??= JSON.stringify(value) ?? String(value);
    } catch {
      shown = String(value);
    }
    if (shown.length > 120) shown = `${shown.slice(0, 117)}...`;
    super(`${path}: ${shown} ${reason}. ${fix}`);
    this.name = "InvalidInput";
  }
}
