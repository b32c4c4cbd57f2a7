// The messages of subprocess protocol version 1 (spec/protocol.md §3), as this port sends them.

import type { Json } from "./json.js";
import type { Op } from "./operations.js";
import type { FitStrategy } from "./wire.js";

export const PROTOCOL_VERSION = 1;

export interface Handshake {
  version: typeof PROTOCOL_VERSION;
  implementation: { name: string; language: string; version?: string; homepage?: string; issues?: string };
  capabilities: { ops: Op[]; fitStrategy: FitStrategy; variableMaxBytes: boolean };
}

/** The answer to a start request in a version this program does not speak (§4.3). */
export interface Refusal {
  version: number;
  error: string;
}

export type RunAnswer =
  | { seq: Json; output: Json }
  | { seq: Json; skipped: { reason: string; issueUrl?: string } }
  | { seq: Json; errored: { message: string; context?: Json } };

export type Answer = Handshake | Refusal | RunAnswer;
